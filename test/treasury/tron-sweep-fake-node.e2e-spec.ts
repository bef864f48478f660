import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { NetworkConfig } from '@app/chains/networks/network.types';
import { RetryOptions } from '@app/chains/rpc/retry';
import { HotWalletKey } from '@app/chains/payouts/hot-wallet-key';
import {
  SignedTronTransaction,
  TronMinedTransaction,
  TronSweepTransport,
} from '@app/chains/sweeps/tron-sweep-transport';
import { FakeTronNode } from '../support/fake-tron-node';

/*
 * The fake TRON node's resource model, which the sweep tests rely on: bandwidth (free, staked,
 * burnt, refused), account creation, the pending state a broadcast is checked against, recovery
 * after a day, and the checks of staking and delegation. Every fee equals the balance change.
 */

const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;
const STAKING_PRIVATE_KEY = testKey('tron model staking account');
const STAKING = addressOf(STAKING_PRIVATE_KEY);
const STAKING_KEY = new HotWalletKey('TRON', STAKING, STAKING_PRIVATE_KEY);
const DEPOSIT_PRIVATE_KEY = testKey('tron model deposit address');
const DEPOSIT = addressOf(DEPOSIT_PRIVATE_KEY);
const HOT = addressOf(testKey('tron model hot wallet'));
const NEWCOMER = addressOf(testKey('tron model newcomer'));
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const TRX = 1_000_000n;
const DAY_IN_BLOCKS = (24 * 60 * 60) / 3;
const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2_000 };

describe('Fake TRON node: accounts, bandwidth, energy and burning', () => {
  let node: FakeTronNode;
  let transport: TronSweepTransport;
  let tronWeb: TronWeb;

  beforeEach(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    const network: NetworkConfig = { ...TESTNET_NETWORKS.TRON, rpcUrls: [url], publicRpcUrl: url };
    transport = new TronSweepTransport(network, { retry: FAST_RETRY, allowedDestinations: [HOT] });
    tronWeb = new TronWeb({ fullHost: url });
    node.mineEmpty(3);
    node.setTrxBalance(STAKING, 50_000n * TRX);
    node.setTokenBalance(USDT, HOT, 1n);
  });

  afterEach(() => node.stop());

  const trxOf = (address: string): bigint => node.trxBalance(address) ?? 0n;

  /** tronweb's own builder result, signed by tronweb, in the transport's stored shape. */
  async function signedByStaking(
    unsigned: Parameters<TronWeb['trx']['sign']>[0],
  ): Promise<SignedTronTransaction> {
    const signed = (await tronWeb.trx.sign(unsigned, STAKING_PRIVATE_KEY)) as {
      txID: string;
      raw_data: { expiration: number };
    };
    return {
      txHash: signed.txID,
      rawTransaction: JSON.stringify(signed),
      expiresAt: new Date(signed.raw_data.expiration),
    };
  }

  async function mined(
    signed: SignedTronTransaction,
    owner: string,
    movedOut = 0n,
  ): Promise<TronMinedTransaction> {
    const before = trxOf(owner);
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    node.mineBroadcasts();
    const info = await transport.transactionInfo(signed.txHash);
    if (!info) throw new Error(`${signed.txHash} was not mined`);
    expect(before - trxOf(owner)).toBe(info.feeSun + movedOut);
    return info;
  }

  async function freeze(amount: bigint, resource: 'ENERGY' | 'BANDWIDTH'): Promise<void> {
    const unsigned = await tronWeb.transactionBuilder.freezeBalanceV2(
      Number(amount),
      resource,
      STAKING,
    );
    await mined(await signedByStaking(unsigned), STAKING, amount);
  }

  /** A deposit address activated, holding `units` of USDT and `lent` TRX of delegated stake. */
  async function depositWithEnergy(units: bigint, lent: bigint): Promise<void> {
    node.setTokenBalance(USDT, DEPOSIT, units);
    await mined(await transport.buildActivate(STAKING_KEY, DEPOSIT), STAKING);
    await freeze(lent, 'ENERGY');
    await mined(await transport.buildDelegateEnergy(STAKING_KEY, DEPOSIT, lent), STAKING);
  }

  it('pays a sweep from the free bytes of the day; a second one finds none and no TRX to burn', async () => {
    // Energy for two sweeps (10 energy a TRX): only the bandwidth runs short.
    await depositWithEnergy(10_000_000n, 13_000n * TRX);
    const first = await mined(
      await transport.buildSweepTransfer(DEPOSIT_PRIVATE_KEY, USDT, HOT, 4_000_000n, 20n * TRX),
      DEPOSIT,
    );
    expect(first).toMatchObject({ succeeded: true, feeSun: 0n, netFeeSun: 0n });
    expect((await transport.accountState(DEPOSIT)).freeBandwidthAvailable).toBe(
      600n - first.netUsage,
    );

    const second = await transport.buildSweepTransfer(
      DEPOSIT_PRIVATE_KEY,
      USDT,
      HOT,
      6_000_000n,
      20n * TRX,
    );

    expect(await transport.broadcast(second.rawTransaction)).toMatchObject({
      kind: 'rejected',
      reason: expect.stringMatching(/^BANDWITH_ERROR: .*insufficient bandwidth/),
    });
    // With TRX of its own, the same bytes are burnt at getTransactionFee (1,000 sun a byte).
    node.setTrxBalance(DEPOSIT, 1n * TRX);
    const burnt = await mined(second, DEPOSIT);
    expect(burnt).toMatchObject({
      succeeded: true,
      netUsage: 0n,
      netFeeSun: first.netUsage * 1_000n,
      feeSun: first.netUsage * 1_000n,
    });
  });

  it('gives the free bytes back 24 hours of chain time after their last use, and the energy too', async () => {
    await depositWithEnergy(10_000_000n, 7_000n * TRX);
    const sweep = await mined(
      await transport.buildSweepTransfer(DEPOSIT_PRIVATE_KEY, USDT, HOT, 4_000_000n, 20n * TRX),
      DEPOSIT,
    );
    const used = await transport.accountState(DEPOSIT);
    expect(used.energyAvailable).toBe(70_000n - sweep.energyUsage);

    node.mineEmpty(DAY_IN_BLOCKS - 1);
    expect((await transport.accountState(DEPOSIT)).energyAvailable).toBe(used.energyAvailable);
    node.mineEmpty(1);

    expect(await transport.accountState(DEPOSIT)).toMatchObject({
      energyAvailable: 70_000n,
      freeBandwidthAvailable: 600n,
    });
  });

  it('creates an account from staked bandwidth without the 0.1 TRX, and by a TRX transfer for 1.1 TRX', async () => {
    await freeze(1_000n * TRX, 'BANDWIDTH');
    expect(await tronWeb.trx.getAccountResources(STAKING)).toMatchObject({ NetLimit: 1_000 });

    const created = await mined(await transport.buildActivate(STAKING_KEY, DEPOSIT), STAKING);
    expect(created).toMatchObject({ feeSun: 1n * TRX, netFeeSun: 0n });
    expect(created.netUsage).toBeGreaterThan(0n);

    const payment = await tronWeb.transactionBuilder.sendTrx(NEWCOMER, 2_000_000, STAKING);
    // The staked bytes left (1,000 less the creation's) still cover this one.
    const transferred = await mined(await signedByStaking(payment), STAKING, 2n * TRX);
    expect(transferred).toMatchObject({ feeSun: 1n * TRX, netFeeSun: 0n });
    expect(node.isAccount(NEWCOMER)).toBe(true);
    expect(trxOf(NEWCOMER)).toBe(2n * TRX);
  });

  it('checks a broadcast against the pending state: TRX already spent by a pending one is refused', async () => {
    node.setTrxBalance(STAKING, 3n * TRX);
    node.setTrxBalance(NEWCOMER, 0n);
    const first = await signedByStaking(
      await tronWeb.transactionBuilder.sendTrx(NEWCOMER, 2_000_000, STAKING),
    );
    const second = await signedByStaking(
      await tronWeb.transactionBuilder.sendTrx(NEWCOMER, 1_500_000, STAKING),
    );

    expect(await transport.broadcast(first.rawTransaction)).toEqual({ kind: 'accepted' });
    expect(await transport.broadcast(second.rawTransaction)).toEqual({
      kind: 'rejected',
      reason:
        'CONTRACT_VALIDATE_ERROR: Contract validate error : Validate TransferContract error, balance is not sufficient.',
    });
    node.mineBroadcasts();
    expect(trxOf(NEWCOMER)).toBe(2n * TRX);
    expect(trxOf(STAKING)).toBe(1n * TRX);
  });

  it('refuses staking more than the balance, lending more than the free stake, taking back more than lent', async () => {
    const refusal = async (signed: SignedTronTransaction) =>
      (await transport.broadcast(signed.rawTransaction)) as { kind: string; reason?: string };
    expect(
      await refusal(
        await signedByStaking(
          await tronWeb.transactionBuilder.freezeBalanceV2(60_000_000_000, 'ENERGY', STAKING),
        ),
      ),
    ).toMatchObject({ kind: 'rejected', reason: expect.stringContaining('accountBalance') });

    await freeze(1_000n * TRX, 'ENERGY');
    await mined(await transport.buildActivate(STAKING_KEY, DEPOSIT), STAKING);

    expect(
      await refusal(await transport.buildDelegateEnergy(STAKING_KEY, DEPOSIT, 1_001n * TRX)),
    ).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining('available FreezeEnergyV2 balance'),
    });
    await mined(await transport.buildDelegateEnergy(STAKING_KEY, DEPOSIT, 600n * TRX), STAKING);
    expect(
      await refusal(await transport.buildUndelegateEnergy(STAKING_KEY, DEPOSIT, 601n * TRX)),
    ).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining('insufficient delegatedFrozenBalance(Energy)'),
    });
    expect(await transport.delegatedEnergy(STAKING, DEPOSIT)).toBe(600n * TRX);
  });
});
