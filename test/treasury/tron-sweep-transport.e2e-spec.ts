import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { TronChainAdapter } from '@app/chains/adapters/tron/tron-chain-adapter';
import { parseTransactionFeeSun } from '@app/chains/adapters/tron/tron-transaction-fee';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { NetworkConfig } from '@app/chains/networks/network.types';
import { ChainError } from '@app/chains/rpc/chain-error';
import { RetryOptions } from '@app/chains/rpc/retry';
import { HotWalletKey } from '@app/chains/payouts/hot-wallet-key';
import {
  SignedTronTransaction,
  TronMinedTransaction,
  TronSweepTransport,
} from '@app/chains/sweeps/tron-sweep-transport';
import { FakeTronNode } from '../support/fake-tron-node';

// Fixed test keys (hashes of labels): they never hold funds anywhere.
const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string => {
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('invalid test key');
  return address;
};
const STAKING_PRIVATE_KEY = testKey('tron sweep staking account');
const STAKING = addressOf(STAKING_PRIVATE_KEY);
const STAKING_KEY = new HotWalletKey('TRON', STAKING, STAKING_PRIVATE_KEY);
const DEPOSIT_PRIVATE_KEY = testKey('tron sweep deposit address 7');
const DEPOSIT = addressOf(DEPOSIT_PRIVATE_KEY);
const HOT = addressOf(testKey('tron sweep hot wallet'));
const TREASURY = addressOf(testKey('tron sweep treasury'));
const STRANGER = addressOf(testKey('tron sweep stranger'));
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;

const TRX = 1_000_000n;
const DEPOSITED = 25_000_000n; // 25 USDT
const STAKED = 10_000n * TRX;
/** The fake node's default: energy a day per whole TRX staked. */
const ENERGY_PER_TRX = 10n;
/** USDT transfer() to an address already holding USDT (the hot wallet does). */
const TRANSFER_ENERGY = 64_285n;
const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2_000 };

async function thrown(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected an error');
}

describe('TronSweepTransport against the fake TRON node (tronweb signing)', () => {
  let node: FakeTronNode;
  let transport: TronSweepTransport;
  let tronWeb: TronWeb;
  let network: NetworkConfig;

  beforeEach(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    network = { ...TESTNET_NETWORKS.TRON, rpcUrls: [url], publicRpcUrl: url };
    transport = new TronSweepTransport(network, {
      retry: FAST_RETRY,
      allowedDestinations: [HOT, TREASURY],
    });
    tronWeb = new TronWeb({ fullHost: url });
    node.mineEmpty(3);
    node.setTrxBalance(STAKING, 20_000n * TRX);
    node.setTokenBalance(USDT, HOT, 1_000_000n);
    // The customer's payment: USDT only, no TRX, so the address is no account.
    node.setTokenBalance(USDT, DEPOSIT, DEPOSITED);
  });

  afterEach(() => node.stop());

  const trxOf = (address: string): bigint => node.trxBalance(address) ?? 0n;
  const txIdOfLastBroadcast = (): string => node.broadcasts[node.broadcasts.length - 1].txid;

  /**
   * Broadcasts, mines, and reads the transaction info; checks that its owner's balance changed by
   * exactly the info's fee plus what the transaction itself moved out of the balance.
   */
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

  async function activateDeposit(): Promise<TronMinedTransaction> {
    return mined(await transport.buildActivate(STAKING_KEY, DEPOSIT), STAKING);
  }

  async function stakeForEnergy(amount: bigint): Promise<void> {
    // Built by tronweb's own builder (it reads the head through /wallet/getblock) and signed by it.
    const unsigned = await tronWeb.transactionBuilder.freezeBalanceV2(
      Number(amount),
      'ENERGY',
      STAKING,
    );
    const signed = await tronWeb.trx.sign(unsigned, STAKING_PRIVATE_KEY);
    const transaction = {
      txHash: signed.txID,
      rawTransaction: JSON.stringify(signed),
      expiresAt: new Date(signed.raw_data.expiration),
    };
    const info = await mined(transaction, STAKING, amount);
    expect(info.succeeded).toBe(true);
  }

  it('sees a deposit address that only received USDT as no account: it cannot send its tokens', async () => {
    expect(await transport.accountState(DEPOSIT)).toEqual({
      activated: false,
      balanceSun: 0n,
      energyAvailable: 0n,
      freeBandwidthAvailable: 0n,
      bandwidthAvailable: 0n,
    });
    expect(await tronWeb.trx.getUnconfirmedAccount(DEPOSIT)).toEqual({});
    expect(await tronWeb.trx.getAccountResources(DEPOSIT)).toEqual({});
    expect(await transport.tokenBalance(DEPOSIT, USDT)).toBe(DEPOSITED);

    const signed = await transport.buildSweepTransfer(
      DEPOSIT_PRIVATE_KEY,
      USDT,
      HOT,
      DEPOSITED,
      100n * TRX,
    );

    expect(await transport.broadcast(signed.rawTransaction)).toEqual({
      kind: 'rejected',
      reason: `CONTRACT_VALIDATE_ERROR: Contract validate error : account [${DEPOSIT}] does not exist`,
    });
    expect(node.pendingTxIds).toEqual([]);
    // Nor can it receive energy before it is an account.
    const delegation = await transport.buildDelegateEnergy(STAKING_KEY, DEPOSIT, 1_000n * TRX);
    expect(await transport.broadcast(delegation.rawTransaction)).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining(`Account [${DEPOSIT}] does not exist`),
    });
  });

  it('activates the address from the staking account for the fees the chain names, sending it no TRX', async () => {
    const parameters = await tronWeb.trx.getChainParameters();
    const parameter = (key: string): bigint =>
      BigInt(parameters.find((entry) => entry.key === key)?.value ?? 0);
    const activationFee =
      parameter('getCreateNewAccountFeeInSystemContract') + parameter('getCreateAccountFee');
    expect(activationFee).toBe(1_100_000n); // 1 TRX + 0.1 TRX for the bandwidth of creating it

    const requestsBefore = node.requests.length;
    const activation = await transport.buildActivate(STAKING_KEY, DEPOSIT);
    // Built and signed locally: the node was asked for its head block (the TaPoS reference) only.
    expect(node.requests.slice(requestsBefore).map((request) => request.path)).toEqual([
      '/wallet/getnowblock',
    ]);
    expect(activation.expiresAt).toEqual(new Date(node.blockTimestamp() + 60_000));
    const info = await mined(activation, STAKING);

    expect(info).toMatchObject({
      succeeded: true,
      feeSun: activationFee,
      netFeeSun: parameter('getCreateAccountFee'),
      netUsage: 0n,
    });
    expect(await transport.accountState(DEPOSIT)).toEqual({
      activated: true,
      balanceSun: 0n,
      energyAvailable: 0n,
      freeBandwidthAvailable: 600n,
      bandwidthAvailable: 600n,
    });
    const account = await tronWeb.trx.getUnconfirmedAccount(DEPOSIT);
    expect(account).toMatchObject({
      address: TronWeb.address.toHex(DEPOSIT).toLowerCase(),
      create_time: node.blockTimestamp(info.blockNumber),
    });
    expect(account.balance).toBeUndefined();
    // parseTransactionFeeSun reads the same `fee` from the info as the node printed it.
    expect(
      parseTransactionFeeSun(
        await tronWeb.trx.getUnconfirmedTransactionInfo(txIdOfLastBroadcast()),
      ),
    ).toBe(activationFee);
  });

  it('activates, delegates energy, sweeps the whole balance burning no TRX, and undelegates', async () => {
    await activateDeposit();
    await stakeForEnergy(STAKED);
    const staking = await transport.accountState(STAKING);
    expect(staking.energyAvailable).toBe((STAKED / TRX) * ENERGY_PER_TRX);
    expect(await tronWeb.trx.getAccountResources(STAKING)).toMatchObject({
      EnergyLimit: Number((STAKED / TRX) * ENERGY_PER_TRX),
      freeNetLimit: 600,
    });

    const cost = await transport.estimateSweepCost(DEPOSIT, USDT, HOT);
    const price = await transport.energyPrice();
    expect(price).toBe(210n);
    expect(cost).toEqual({
      energy: TRANSFER_ENERGY,
      energyPriceSun: price,
      energyBurnSun: TRANSFER_ENERGY * price,
      bandwidthBytes: expect.any(BigInt),
      bandwidthPriceSun: 1_000n,
      bandwidthBurnSun: cost.bandwidthBytes * 1_000n,
      feeLimitSun: TRANSFER_ENERGY * price,
    });
    // One transfer fits in the 600 free bytes a day of the newly activated address.
    expect(cost.bandwidthBytes).toBeLessThanOrEqual(600n);

    // Lend just enough stake: whole TRX at ENERGY_PER_TRX energy each.
    const lent = ((cost.energy + ENERGY_PER_TRX - 1n) / ENERGY_PER_TRX) * TRX;
    const delegation = await mined(
      await transport.buildDelegateEnergy(STAKING_KEY, DEPOSIT, lent),
      STAKING,
    );
    expect(delegation.succeeded).toBe(true);
    expect(await transport.delegatedEnergy(STAKING, DEPOSIT)).toBe(lent);
    expect((await transport.accountState(DEPOSIT)).energyAvailable).toBe(
      (lent / TRX) * ENERGY_PER_TRX,
    );

    const amount = await transport.tokenBalance(DEPOSIT, USDT);
    const signedSweep = await transport.buildSweepTransfer(
      DEPOSIT_PRIVATE_KEY,
      USDT,
      HOT,
      amount,
      cost.feeLimitSun,
    );
    const sweep = await mined(signedSweep, DEPOSIT);

    expect(sweep).toEqual({
      blockNumber: node.headBlockNumber,
      succeeded: true,
      contractResult: 'SUCCESS',
      feeSun: 0n,
      energyUsage: TRANSFER_ENERGY,
      energyFeeSun: 0n,
      energyUsageTotal: TRANSFER_ENERGY,
      netUsage: cost.bandwidthBytes,
      netFeeSun: 0n,
    });
    expect(node.tokenBalance(USDT, DEPOSIT)).toBe(0n);
    expect(node.tokenBalance(USDT, HOT)).toBe(1_000_000n + DEPOSITED);
    expect(trxOf(DEPOSIT)).toBe(0n); // never held any TRX: no dust

    const undelegation = await mined(
      await transport.buildUndelegateEnergy(STAKING_KEY, DEPOSIT, lent),
      STAKING,
    );
    expect(undelegation.succeeded).toBe(true);
    // The staking account's 600 free bytes of the day went on the stake and the delegation: this
    // one burns TRX for its bytes.
    expect(undelegation).toMatchObject({ netUsage: 0n, feeSun: undelegation.netFeeSun });
    expect(undelegation.netFeeSun).toBeGreaterThan(0n);
    expect(await transport.delegatedEnergy(STAKING, DEPOSIT)).toBe(0n);
    expect((await transport.accountState(DEPOSIT)).energyAvailable).toBe(0n);
    // The stake is back; the energy the sweep used comes back with it, as java-tron moves the
    // receiver's usage to the owner, and recovers over the day.
    expect((await transport.accountState(STAKING)).energyAvailable).toBe(
      (STAKED / TRX) * ENERGY_PER_TRX - TRANSFER_ENERGY,
    );
    // The deposit watcher reads the blocks of the whole sequence: one transfer, the sweep.
    const adapter = new TronChainAdapter(network, { retry: FAST_RETRY });
    try {
      expect(await adapter.scanTransfers(1, node.headBlockNumber, [USDT])).toEqual([
        expect.objectContaining({
          from: DEPOSIT,
          to: HOT,
          amountBaseUnits: amount,
          txHash: signedSweep.txHash,
        }),
      ]);
    } finally {
      await adapter.close();
    }
    // The solidity API's transaction info (tronweb's getTransactionInfo) says the same.
    node.mineEmpty(node.solidLag);
    expect(
      parseTransactionFeeSun(await tronWeb.trx.getTransactionInfo(txIdOfLastBroadcast())),
    ).toBe(undelegation.feeSun);
  });

  it('burns exactly the fee limit when a sweep without energy runs out of it, moving nothing', async () => {
    await activateDeposit();
    // An address with TRX of its own but no energy: the burn is the last resort, capped.
    const funding = await tronWeb.transactionBuilder.sendTrx(DEPOSIT, Number(5n * TRX), STAKING);
    const signedFunding = await tronWeb.trx.sign(funding, STAKING_PRIVATE_KEY);
    await mined(
      {
        txHash: signedFunding.txID,
        rawTransaction: JSON.stringify(signedFunding),
        expiresAt: new Date(signedFunding.raw_data.expiration),
      },
      STAKING,
      5n * TRX,
    );
    expect(trxOf(DEPOSIT)).toBe(5n * TRX);
    const price = await transport.energyPrice();
    const feeLimit = 10_000n * price; // far below the 64,285 energy the transfer needs

    const info = await mined(
      await transport.buildSweepTransfer(DEPOSIT_PRIVATE_KEY, USDT, HOT, DEPOSITED, feeLimit),
      DEPOSIT,
    );

    expect(info).toMatchObject({
      succeeded: false,
      contractResult: 'OUT_OF_ENERGY',
      feeSun: feeLimit,
      energyUsage: 0n,
      energyFeeSun: feeLimit,
      energyUsageTotal: 10_000n,
      netFeeSun: 0n,
    });
    expect(trxOf(DEPOSIT)).toBe(5n * TRX - feeLimit);
    expect(node.tokenBalance(USDT, DEPOSIT)).toBe(DEPOSITED);
  });

  it('needs a fee_limit covering the energy even when it is delegated: below it, OUT_OF_ENERGY', async () => {
    await activateDeposit();
    await stakeForEnergy(STAKED);
    await mined(await transport.buildDelegateEnergy(STAKING_KEY, DEPOSIT, STAKED), STAKING);
    const price = await transport.energyPrice();
    const feeLimit = 10_000n * price;

    const info = await mined(
      await transport.buildSweepTransfer(DEPOSIT_PRIVATE_KEY, USDT, HOT, DEPOSITED, feeLimit),
      DEPOSIT,
    );

    // java-tron lets a call use at most fee_limit / price energy, its own energy included: the
    // transfer stops at 10,000 energy, taken from the delegated energy, and burns nothing.
    expect(info).toMatchObject({
      succeeded: false,
      contractResult: 'OUT_OF_ENERGY',
      feeSun: 0n,
      energyUsage: 10_000n,
      energyUsageTotal: 10_000n,
    });
    expect(node.tokenBalance(USDT, DEPOSIT)).toBe(DEPOSITED);
    expect((await transport.accountState(DEPOSIT)).energyAvailable).toBe(
      (STAKED / TRX) * ENERGY_PER_TRX - 10_000n,
    );
  });

  it('reads the energy price from the chain, following a changed parameter', async () => {
    expect(await transport.energyPrice()).toBe(210n);
    expect((await transport.estimateSweepCost(DEPOSIT, USDT, HOT)).energyBurnSun).toBe(
      TRANSFER_ENERGY * 210n,
    );

    node.setChainParameter('getEnergyFee', 100);

    expect(await transport.energyPrice()).toBe(100n);
    expect(await tronWeb.trx.getEnergyPrices()).toBe(`0:210,${node.blockTimestamp()}:100`);
    const cost = await transport.estimateSweepCost(DEPOSIT, USDT, HOT);
    expect(cost).toMatchObject({ energyPriceSun: 100n, energyBurnSun: TRANSFER_ENERGY * 100n });
    // A transfer to an address holding no USDT needs about twice the energy.
    expect((await transport.estimateSweepCost(DEPOSIT, USDT, TREASURY)).energy).toBe(130_285n);
  });

  it('signs a deposit transfer only to an allowed destination, of a token of the network', async () => {
    const errors = [
      await thrown(() =>
        transport.buildSweepTransfer(DEPOSIT_PRIVATE_KEY, USDT, STRANGER, DEPOSITED, TRX),
      ),
      await thrown(() =>
        transport.buildSweepTransfer(DEPOSIT_PRIVATE_KEY, STRANGER, HOT, DEPOSITED, TRX),
      ),
      await thrown(() => transport.estimateSweepCost(DEPOSIT, USDT, STRANGER)),
    ];

    for (const error of errors) {
      expect(error).toBeInstanceOf(ChainError);
      expect(error).toMatchObject({ kind: 'permanent' });
      expect(`${error.message} ${error.stack}`).not.toContain(DEPOSIT_PRIVATE_KEY);
    }
    expect(errors[0].message).toContain('is not an allowed sweep destination');
    expect(errors[1].message).toContain('is not a token of the network');
    expect(node.requests).toEqual([]);
  });

  it('refuses a staking key of another address before any request, never showing the key', async () => {
    const misfiled = new HotWalletKey('TRON', HOT, STAKING_PRIVATE_KEY);

    const error = await thrown(() => transport.buildActivate(misfiled, DEPOSIT));

    expect(error.message).toContain('does not belong to');
    expect(`${error.message} ${error.stack}`).not.toContain(STAKING_PRIVATE_KEY);
    expect(node.requests).toEqual([]);
  });
});
