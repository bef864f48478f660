import { Interface, Transaction, verifyAuthorization, Wallet } from 'ethers';
import { SWEEP_DELEGATE_INTERFACE } from '../contracts/contract-artifacts';
import { signSweepAuthorization } from './evm-sweep-authorization';
import { encodeSweepMany } from './evm-sweep-calldata';
import { delegationDesignatorOf, isDelegatedTo } from './evm-sweep-delegation';
import { decodeSweepReceipt, SweepReceiptLog } from './evm-sweep-receipt';
import { signSweepBatch, SweepBatchTransaction } from './evm-sweep-transaction';

// anvil's public test keys (accounts #3 and #4): never hold anything real.
const DEPOSIT_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const SWEEPER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const DELEGATE = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OTHER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const TOKEN = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
const HOT_WALLET = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CHAIN_ID = 8453;

describe('signSweepAuthorization', () => {
  it('signs a delegation to the configured delegate on the given chain', () => {
    const authorization = signSweepAuthorization(
      DEPOSIT_KEY,
      { delegate: DELEGATE.toLowerCase(), chainId: CHAIN_ID, nonce: 3 },
      DELEGATE,
    );
    expect(authorization).toMatchObject({ address: DELEGATE, chainId: 8453n, nonce: 3n });
    const signer = verifyAuthorization(authorization, authorization.signature);
    expect(signer).toBe(new Wallet(DEPOSIT_KEY).address);
  });

  it.each([0, -1, 1.5, Number.NaN, 2 ** 53])('refuses chain id %p', (chainId) => {
    expect(() =>
      signSweepAuthorization(DEPOSIT_KEY, { delegate: DELEGATE, chainId, nonce: 0 }, DELEGATE),
    ).toThrow(/chain id/);
  });

  it('refuses a delegate other than the configured one', () => {
    expect(() =>
      signSweepAuthorization(
        DEPOSIT_KEY,
        { delegate: OTHER, chainId: CHAIN_ID, nonce: 0 },
        DELEGATE,
      ),
    ).toThrow(`Refusing to authorize ${OTHER}`);
  });

  it('never repeats a malformed key in its error', () => {
    const badKey = `${DEPOSIT_KEY.slice(0, -2)}zz`;
    const attempt = () =>
      signSweepAuthorization(badKey, { delegate: DELEGATE, chainId: CHAIN_ID, nonce: 0 }, DELEGATE);
    expect(attempt).toThrow('The private key is not a valid secp256k1 key.');
    expect(attempt).not.toThrow(badKey.slice(2, 20));
  });
});

describe('encodeSweepMany', () => {
  it('encodes sweepMany(accounts, token, toTreasury)', () => {
    const accounts = [HOT_WALLET.toLowerCase(), OTHER];
    const decoded = SWEEP_DELEGATE_INTERFACE.decodeFunctionData(
      'sweepMany',
      encodeSweepMany(accounts, TOKEN, true),
    );
    expect([...(decoded[0] as string[])]).toEqual([HOT_WALLET, OTHER]);
    expect(decoded[1]).toBe(TOKEN);
    expect(decoded[2]).toBe(true);
  });

  it('refuses an empty batch, an account listed twice and a non-address', () => {
    expect(() => encodeSweepMany([], TOKEN, false)).toThrow(/at least one/);
    expect(() => encodeSweepMany([OTHER, OTHER.toLowerCase()], TOKEN, false)).toThrow(/twice/);
    expect(() => encodeSweepMany(['0x1234'], TOKEN, false)).toThrow(/not an address/);
  });
});

describe('signSweepBatch', () => {
  const batch = (overrides: Partial<SweepBatchTransaction> = {}): SweepBatchTransaction => ({
    chainId: CHAIN_ID,
    delegate: DELEGATE,
    calldata: encodeSweepMany([OTHER], TOKEN, false),
    nonce: 7,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    gasLimit: 500_000n,
    authorizationList: [],
    ...overrides,
  });
  const authorization = (chainId = CHAIN_ID, delegate = DELEGATE) =>
    signSweepAuthorization(DEPOSIT_KEY, { delegate, chainId, nonce: 0 }, delegate);

  it('signs a type-4 transaction carrying the authorizations', () => {
    const signed = signSweepBatch(SWEEPER_KEY, batch({ authorizationList: [authorization()] }));
    const transaction = Transaction.from(signed.rawTransaction);
    expect(transaction.type).toBe(4);
    expect(transaction.hash).toBe(signed.txHash);
    expect(transaction.from).toBe(new Wallet(SWEEPER_KEY).address);
    expect(transaction.to).toBe(DELEGATE);
    expect(transaction.chainId).toBe(8453n);
    expect(transaction.nonce).toBe(7);
    expect(transaction.value).toBe(0n);
    const [carried] = transaction.authorizationList ?? [];
    expect(verifyAuthorization(carried, carried.signature)).toBe(new Wallet(DEPOSIT_KEY).address);
  });

  it('signs a type-2 transaction when every address already delegates', () => {
    const signed = signSweepBatch(SWEEPER_KEY, batch());
    const transaction = Transaction.from(signed.rawTransaction);
    expect(transaction.type).toBe(2);
    expect(transaction.authorizationList).toBeNull();
  });

  it('refuses an authorization for another chain or another delegate', () => {
    const forOtherChain = authorization(1);
    expect(() =>
      signSweepBatch(SWEEPER_KEY, batch({ authorizationList: [forOtherChain] })),
    ).toThrow(/chain 1/);
    const forOther = authorization(CHAIN_ID, OTHER);
    expect(() => signSweepBatch(SWEEPER_KEY, batch({ authorizationList: [forOther] }))).toThrow(
      /delegates to/,
    );
    expect(() => signSweepBatch(SWEEPER_KEY, batch({ chainId: 0 }))).toThrow(/chain id/);
  });
});

describe('decodeSweepReceipt', () => {
  const TOKEN_EVENTS = new Interface([
    'event Transfer(address indexed from, address indexed to, uint256 value)',
  ]);
  const logOf = (
    address: string,
    index: number,
    event: string,
    values: unknown[],
    from: Interface = SWEEP_DELEGATE_INTERFACE,
  ): SweepReceiptLog => {
    const { data, topics } = from.encodeEventLog(event, values);
    return { address, index, data, topics };
  };

  it("reads Swept, SweepFailed and SweepSkipped from the delegate's own logs only", () => {
    const logs = [
      logOf(TOKEN, 0, 'Transfer', [OTHER, HOT_WALLET, 5n], TOKEN_EVENTS),
      logOf(DELEGATE.toLowerCase(), 1, 'Swept', [OTHER, TOKEN, HOT_WALLET, 5n]),
      logOf(DELEGATE, 2, 'SweepFailed', [HOT_WALLET, TOKEN]),
      logOf(DELEGATE, 3, 'SweepSkipped', [DELEGATE, TOKEN]),
      // The same event from any other address (a token, an account) is not the delegate's word.
      logOf(OTHER, 4, 'Swept', [OTHER, TOKEN, HOT_WALLET, 10n ** 30n]),
    ];
    expect(decodeSweepReceipt(logs, DELEGATE)).toEqual({
      swept: [{ account: OTHER, token: TOKEN, destination: HOT_WALLET, amount: 5n, logIndex: 1 }],
      failed: [{ account: HOT_WALLET, token: TOKEN, logIndex: 2 }],
      skipped: [{ account: DELEGATE, token: TOKEN, logIndex: 3 }],
    });
  });
});

describe('isDelegatedTo', () => {
  it('holds only for the exact 23-byte designator to this delegate', () => {
    const designator = delegationDesignatorOf(DELEGATE);
    expect(designator).toBe(`0xef0100${DELEGATE.slice(2).toLowerCase()}`);
    expect(isDelegatedTo(designator, DELEGATE)).toBe(true);
    expect(isDelegatedTo(designator.toUpperCase().replace('0X', '0x'), DELEGATE)).toBe(true);
    expect(isDelegatedTo(delegationDesignatorOf(OTHER), DELEGATE)).toBe(false);
    expect(isDelegatedTo('0x', DELEGATE)).toBe(false);
    expect(isDelegatedTo(`${designator}00`, DELEGATE)).toBe(false);
  });
});
