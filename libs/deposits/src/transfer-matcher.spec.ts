import { EntityManager } from 'typeorm';
import { NetworkRegistry, TokenTransfer } from '@app/chains';
import { AppConfig } from '@app/common';
import {
  AddressSession,
  classifyTransfers,
  ClassifyInput,
  KnownTransfer,
  toTokenAmount,
  TransferMatcher,
  transferKey,
} from './transfer-matcher';
import { WatchedToken } from './token-index';

const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const UNWATCHED = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const SESSION_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const POOL_ADDRESS = '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0';
const STRANGER = '0x000000000000000000000000000000000000bEEF';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const tokens = new Map<string, WatchedToken>([
  [USDT, { currency: 'USDT', contract: USDT, decimals: 6 }],
  [USDC, { currency: 'USDC', contract: USDC, decimals: 6 }],
]);

let nextLog = 0;
function transfer(overrides: Partial<TokenTransfer> = {}): TokenTransfer {
  nextLog += 1;
  return {
    tokenContract: USDT,
    from: PAYER,
    to: SESSION_ADDRESS,
    amountBaseUnits: 10_000_000n,
    txHash: `0x${nextLog.toString(16).padStart(64, '0')}`,
    logIndex: nextLog,
    blockNumber: 100,
    blockHash: `0x${'ab'.repeat(32)}`,
    ...overrides,
  };
}

function session(overrides: Partial<AddressSession> = {}): AddressSession {
  return {
    id: 'cs_session',
    network: 'ETHEREUM',
    pay_address: SESSION_ADDRESS,
    currency_contract: USDT,
    merchant_id: 'mer_a',
    sub_merchant_id: 'sm_a',
    livemode: false,
    paid: false,
    refunded: false,
    ...overrides,
  };
}

function classify(found: TokenTransfer[], input: Partial<ClassifyInput> = {}) {
  return classifyTransfers({
    network: 'ETHEREUM',
    tokens,
    found,
    sessions: new Map([[SESSION_ADDRESS, session()]]),
    poolAddresses: new Set([POOL_ADDRESS]),
    known: new Map(),
    livemode: true,
    ...input,
  });
}

describe('classifyTransfers', () => {
  it('gives a session its own token on its own network, amount as an exact decimal string', () => {
    const paid = transfer({ amountBaseUnits: 10_500_001n });
    const { detected, unmatched } = classify([paid]);
    expect(unmatched).toEqual([]);
    expect(detected).toEqual([
      {
        sessionId: 'cs_session',
        network: 'ETHEREUM',
        currency: 'USDT',
        tokenContract: USDT,
        fromAddress: PAYER,
        toAddress: SESSION_ADDRESS,
        txHash: paid.txHash,
        logIndex: paid.logIndex,
        amount: '10.500001',
        amountBaseUnits: '10500001',
        blockNumber: 100,
        blockHash: paid.blockHash,
      },
    ]);
  });

  it("records a payment on another network of the family as wrong_network with the session's owner", () => {
    const onBsc = transfer();
    const { detected, unmatched } = classify([onBsc], { network: 'BSC' });
    expect(detected).toEqual([]);
    expect(unmatched).toEqual([
      expect.objectContaining({
        reason: 'wrong_network',
        network: 'BSC',
        sessionId: 'cs_session',
        merchantId: 'mer_a',
        subMerchantId: 'sm_a',
        livemode: false,
        amount: '10',
        amountBaseUnits: '10000000',
        txHash: onBsc.txHash,
      }),
    ]);
  });

  it('records the other watched token as wrong_token, even on a session already paid', () => {
    const sessions = new Map([[SESSION_ADDRESS, session({ paid: true })]]);
    const { detected, unmatched } = classify([transfer({ tokenContract: USDC })], { sessions });
    expect(detected).toEqual([]);
    expect(unmatched).toEqual([
      expect.objectContaining({ reason: 'wrong_token', currency: 'USDC', tokenContract: USDC }),
    ]);
  });

  it('records a new payment to a Paid session as session_already_paid', () => {
    const sessions = new Map([[SESSION_ADDRESS, session({ paid: true })]]);
    const { detected, unmatched } = classify([transfer()], { sessions });
    expect(detected).toEqual([]);
    expect(unmatched).toEqual([expect.objectContaining({ reason: 'session_already_paid' })]);
  });

  it('records a new payment to a session with a live refund as session_refunded', () => {
    const sessions = new Map([[SESSION_ADDRESS, session({ refunded: true })]]);
    const { detected, unmatched } = classify([transfer()], { sessions });
    expect(detected).toEqual([]);
    expect(unmatched).toEqual([
      expect.objectContaining({ reason: 'session_refunded', sessionId: 'cs_session' }),
    ]);
  });

  it("keeps a session's own transfer the session's when it is found again after the session is Paid", () => {
    const own = transfer();
    const sessions = new Map([[SESSION_ADDRESS, session({ paid: true })]]);
    const known = new Map<string, KnownTransfer>([
      [transferKey(own), { kind: 'session', session_id: 'cs_session' }],
    ]);
    const { detected, unmatched } = classify([own], { sessions, known });
    expect(unmatched).toEqual([]);
    expect(detected).toEqual([
      expect.objectContaining({ sessionId: 'cs_session', txHash: own.txHash }),
    ]);
  });

  it('keeps an unmatched transfer unmatched with its first reason, whatever the session is now', () => {
    const extra = transfer();
    const known = new Map<string, KnownTransfer>([
      [
        transferKey(extra),
        {
          kind: 'unmatched',
          reason: 'session_already_paid',
          session_id: 'cs_session',
          merchant_id: 'mer_a',
          sub_merchant_id: null,
          livemode: false,
        },
      ],
    ]);
    // The session is no longer Paid (a reorg took its payment): the extra payment is still not
    // credited silently.
    const { detected, unmatched } = classify([extra], { known });
    expect(detected).toEqual([]);
    expect(unmatched).toEqual([
      expect.objectContaining({ reason: 'session_already_paid', sessionId: 'cs_session' }),
    ]);
  });

  it("records a pool address without a session as unknown_address, in the deployment's livemode", () => {
    const { unmatched } = classify([transfer({ to: POOL_ADDRESS })], { livemode: true });
    expect(unmatched).toEqual([
      expect.objectContaining({
        reason: 'unknown_address',
        sessionId: null,
        merchantId: null,
        subMerchantId: null,
        livemode: true,
        toAddress: POOL_ADDRESS,
      }),
    ]);
  });

  it('ignores zero-value transfers, unwatched tokens and addresses that are not ours', () => {
    const result = classify([
      transfer({ amountBaseUnits: 0n }),
      transfer({ amountBaseUnits: 0n, to: POOL_ADDRESS }),
      transfer({ amountBaseUnits: 0n, tokenContract: USDC }),
      transfer({ tokenContract: UNWATCHED }),
      transfer({ to: STRANGER }),
    ]);
    expect(result).toEqual({ detected: [], unmatched: [] });
  });
});

describe('toTokenAmount', () => {
  it('divides base units exactly, beyond what a JS number holds', () => {
    expect(toTokenAmount(1n, 6)).toBe('0.000001');
    expect(toTokenAmount(123_456_789_012_345_678_901_234_567n, 18)).toBe(
      '123456789.012345678901234567',
    );
    expect(toTokenAmount(10n ** 40n, 6)).toBe(`1${'0'.repeat(34)}`);
  });
});

describe('TransferMatcher.match', () => {
  const networks = new NetworkRegistry('sandbox');
  const config = { livemode: false } as AppConfig;

  /** A manager that answers like the database would and counts the queries it was sent. */
  function fakeManager() {
    const queries: string[] = [];
    const manager = {
      query: async (sql: string, params: unknown[]) => {
        queries.push(sql);
        if (sql.includes('FROM checkout_sessions')) {
          // EVM addresses are looked up in lower case (the lower(pay_address) index).
          const addresses = params[0] as string[];
          const wanted = sql.includes('lower(s.pay_address)')
            ? SESSION_ADDRESS.toLowerCase()
            : SESSION_ADDRESS;
          return addresses.includes(wanted) ? [session()] : [];
        }
        if (sql.includes('FROM pay_addresses')) {
          const addresses = params[0] as string[];
          return addresses.includes(POOL_ADDRESS) ? [{ address: POOL_ADDRESS }] : [];
        }
        return [];
      },
    };
    return { manager: manager as unknown as EntityManager, queries };
  }

  it('runs at most four queries for a block of hundreds of transfers', async () => {
    const { manager, queries } = fakeManager();
    const found = [
      ...Array.from({ length: 300 }, (_, index) =>
        transfer({ to: `0x${(index + 1).toString(16).padStart(40, '0')}` }),
      ),
      ...Array.from({ length: 100 }, () => transfer()),
      ...Array.from({ length: 100 }, () => transfer({ to: POOL_ADDRESS })),
    ];
    const result = await new TransferMatcher(networks, config).match(
      manager,
      'ETHEREUM',
      tokens,
      found,
    );
    // The sessions' lock, the sessions, the pool addresses, the known transfers.
    expect(queries).toHaveLength(4);
    expect(queries[0]).toContain('FOR UPDATE');
    expect(result.detected).toHaveLength(100);
    expect(result.unmatched).toHaveLength(100);
    expect(result.unmatched.every((item) => item.reason === 'unknown_address')).toBe(true);
  });

  it('asks nothing when nothing relevant was found', async () => {
    const { manager, queries } = fakeManager();
    const matcher = new TransferMatcher(networks, config);
    expect(await matcher.match(manager, 'ETHEREUM', tokens, [])).toEqual({
      detected: [],
      unmatched: [],
    });
    await matcher.match(manager, 'ETHEREUM', tokens, [
      transfer({ amountBaseUnits: 0n }),
      transfer({ tokenContract: UNWATCHED }),
    ]);
    expect(queries).toEqual([]);
  });

  it('skips the known-transfer query when no address is ours', async () => {
    const { manager, queries } = fakeManager();
    await new TransferMatcher(networks, config).match(manager, 'ETHEREUM', tokens, [
      transfer({ to: STRANGER }),
    ]);
    expect(queries).toHaveLength(3);
  });
});
