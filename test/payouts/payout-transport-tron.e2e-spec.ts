import { createHash } from 'node:crypto';
import { TronWeb, utils } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { NetworkConfig } from '@app/chains/networks/network.types';
import { ChainError } from '@app/chains/rpc/chain-error';
import { RetryOptions } from '@app/chains/rpc/retry';
import { HotWalletKey } from '@app/chains/payouts/hot-wallet-key';
import { SignedTransfer } from '@app/chains/payouts/payout-transport';
import { TronNodePayoutTransport } from '@app/chains/payouts/tron-payout-transport';
import { FakeTronNode } from '../support/fake-tron-node';
import { TronProxy } from '../support/tron-proxy';

// Fixed test keys (hashes of labels): they never hold funds anywhere.
const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string => {
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('invalid test key');
  return address;
};
const HOT_PRIVATE_KEY = testKey('tron payout hot wallet');
const HOT = addressOf(HOT_PRIVATE_KEY);
const HOT_KEY = new HotWalletKey('TRON', HOT, HOT_PRIVATE_KEY);
const OTHER_PRIVATE_KEY = testKey('tron payout other');
const RECIPIENT = addressOf(testKey('tron payout recipient'));
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const FEE_LIMIT_SUN = 30_000_000n;
const AMOUNT = 12_345_678n;
const EXPIRATION_MS = 60_000;
const SOLID_LAG = 19;

const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 1_000 };
const hex = (address: string): string => TronWeb.address.toHex(address).toLowerCase();
const word = (value: string): string => value.padStart(64, '0');
const networkWith = (rpcUrls: string[]): NetworkConfig => ({
  ...TESTNET_NETWORKS.TRON,
  rpcUrls,
  publicRpcUrl: rpcUrls[0],
});
const order = (amountBaseUnits = AMOUNT) => ({
  tokenContract: USDT,
  to: RECIPIENT,
  amountBaseUnits,
});

async function thrown(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected an error');
}

describe('TronNodePayoutTransport against the fake TRON node', () => {
  let node: FakeTronNode;
  let transport: TronNodePayoutTransport;
  const proxies: TronProxy[] = [];

  beforeEach(async () => {
    node = new FakeTronNode();
    transport = new TronNodePayoutTransport(networkWith([await node.start()]), {
      retry: FAST_RETRY,
    });
    node.mineEmpty(3);
    node.setTrxBalance(HOT, 50_000_000n);
    node.setTokenBalance(USDT, HOT, 1_000_000_000n);
  });

  afterEach(async () => {
    await transport.close();
    await Promise.all(proxies.splice(0).map((proxy) => proxy.stop().catch(() => undefined)));
    await node.stop();
  });

  const build = (amount = AMOUNT): Promise<SignedTransfer> =>
    transport.buildAndSign(HOT_KEY, order(amount), FEE_LIMIT_SUN);

  it('builds the transfer on the node, signs it locally, and keeps its id and expiration', async () => {
    const referenceBlock = node.headBlockNumber;

    const signed = await build();

    const transaction = JSON.parse(signed.rawTransaction);
    const call = transaction.raw_data.contract[0].parameter.value;
    expect(call).toEqual({
      data: 'a9059cbb' + word(hex(RECIPIENT).slice(2)) + word(AMOUNT.toString(16)),
      owner_address: hex(HOT),
      contract_address: hex(USDT),
    });
    expect(transaction.raw_data).toMatchObject({
      fee_limit: Number(FEE_LIMIT_SUN),
      ref_block_hash: node.blockId(referenceBlock)?.slice(16, 32),
    });
    expect(transaction.txID).toBe(signed.txHash);
    expect(utils.crypto.ecRecover(signed.txHash, transaction.signature[0]).toLowerCase()).toBe(
      hex(HOT),
    );
    expect(signed).toEqual({
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      rawTransaction: signed.rawTransaction,
      nonce: null,
      fees: null,
      gasLimit: null,
      expiresAt: new Date(node.blockTimestamp(referenceBlock) + EXPIRATION_MS),
    });
    expect(node.requests.map((request) => [request.path, request.body])).toEqual([
      [
        '/wallet/triggersmartcontract',
        {
          owner_address: hex(HOT),
          contract_address: hex(USDT),
          function_selector: 'transfer(address,uint256)',
          parameter: call.data.slice(8),
          fee_limit: Number(FEE_LIMIT_SUN),
          call_value: 0,
          visible: false,
        },
      ],
    ]);
  });

  it('broadcasts, sees the transfer pending then mined, and the tokens move', async () => {
    const signed = await build();

    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'pending' });
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'already_known' });

    const mined = node.mineBroadcasts();
    // The transaction info's `fee`, in sun: the hot wallet has no energy, so the fake node burns
    // the 130,285 energy of a transfer to an address holding no USDT at 210 sun (its default
    // getEnergyFee); the bytes come from the wallet's free bandwidth.
    const fee = 130_285n * 210n;
    expect(await transport.lookup(signed.txHash)).toEqual({
      state: 'mined',
      status: {
        blockNumber: mined.blockNumber,
        blockHash: node.blockId(mined.blockNumber),
        succeeded: true,
        confirmations: 1,
      },
      feeBaseUnits: fee,
    });
    expect(await transport.balances(RECIPIENT, USDT)).toEqual({ token: AMOUNT, native: 0n });
    expect(await transport.balances(HOT, USDT)).toEqual({
      token: 1_000_000_000n - AMOUNT,
      native: 50_000_000n - fee,
    });
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'already_known' });
  });

  it('sees a transfer the wallet lacks tokens for mined as failed, nothing moved', async () => {
    node.setTokenBalance(USDT, HOT, AMOUNT - 1n);
    const signed = await build();
    await transport.broadcast(signed.rawTransaction);

    node.mineBroadcasts();

    expect(await transport.lookup(signed.txHash)).toMatchObject({
      state: 'mined',
      status: { succeeded: false },
    });
    expect((await transport.balances(RECIPIENT, USDT)).token).toBe(0n);
    expect((await transport.balances(HOT, USDT)).token).toBe(AMOUNT - 1n);
  });

  it('proves expiry only once the solidified head is past the expiration and the node forgets it', async () => {
    const signed = await build();
    const expiresAt = signed.expiresAt as Date;
    await transport.broadcast(signed.rawTransaction);
    const blocksToExpiry = (expiresAt.getTime() - node.blockTimestamp()) / 3_000;

    node.mineEmpty(blocksToExpiry);
    expect(node.blockTimestamp()).toBe(expiresAt.getTime());
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'pending' });
    expect(node.mineBroadcasts().txIds).toEqual([]);
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'unknown' });
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'expired' });
    expect(await transport.provenExpired(signed.rawTransaction)).toBe(false);

    // The solidified head reaches the block at the expiration: not past it yet.
    node.mineEmpty(SOLID_LAG - 1);
    expect(node.blockTimestamp(node.headBlockNumber - SOLID_LAG)).toBe(expiresAt.getTime());
    expect(await transport.provenExpired(signed.rawTransaction)).toBe(false);

    node.mineEmpty(1);
    expect(await transport.provenExpired(signed.rawTransaction)).toBe(true);
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'expired' });
  });

  it('never proves expiry of a transaction that a block of its window holds', async () => {
    const signed = await build();
    const expiresAt = signed.expiresAt as Date;
    await transport.broadcast(signed.rawTransaction);
    expect(node.mineBroadcasts().txIds).toEqual([signed.txHash]);
    node.mineEmpty((expiresAt.getTime() - node.blockTimestamp()) / 3_000 + SOLID_LAG + 1);

    expect(await transport.provenExpired(signed.rawTransaction)).toBe(false);
  });

  it('proves dead a transaction whose reference block is not on this chain (TaPoS refuses it)', async () => {
    // Built on a block that then lost a fork: java-tron refuses it in every block of this chain.
    const signed = await build();
    const expiresAt = signed.expiresAt as Date;
    const stored = JSON.parse(signed.rawTransaction) as { raw_data: { ref_block_hash: string } };
    stored.raw_data.ref_block_hash = 'ff'.repeat(8);
    expect(await transport.provenExpired(JSON.stringify(stored))).toBe(false);

    node.mineEmpty((expiresAt.getTime() - node.blockTimestamp()) / 3_000 + SOLID_LAG + 1);
    expect(await transport.provenExpired(JSON.stringify(stored))).toBe(true);
  });

  it('reads the proof from irreversible blocks only, never a backend still on a fork', async () => {
    const signed = await build();
    const expiresAt = signed.expiresAt as Date;
    await transport.broadcast(signed.rawTransaction);
    const reference = node.headBlockNumber;
    expect(node.mineBroadcasts().txIds).toEqual([signed.txHash]);
    node.mineEmpty((expiresAt.getTime() - node.blockTimestamp()) / 3_000 + SOLID_LAG + 1);
    // The mined transfer's reference height reads as another block on the full-node API.
    const forked = await TronProxy.start(node.url);
    proxies.push(forked);
    forked.forkedHeights.add(reference);
    const viaFork = new TronNodePayoutTransport(networkWith([forked.url]), { retry: FAST_RETRY });

    expect(await viaFork.provenExpired(signed.rawTransaction)).toBe(false);
  });

  it('finds the reference block of a transaction signed more than 65,536 blocks ago', async () => {
    const signed = await build();
    await transport.broadcast(signed.rawTransaction);
    node.dropBroadcasts();
    node.mineEmpty(65_536 + 100);

    expect(await transport.provenExpired(signed.rawTransaction)).toBe(true);
  });

  it('re-sends the stored JSON of a transaction the node forgot', async () => {
    const signed = await build();
    await transport.broadcast(signed.rawTransaction);
    node.dropBroadcasts();
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'unknown' });

    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    expect(node.mineBroadcasts().txIds).toEqual([signed.txHash]);
  });

  it('takes the proof from one node that has every block of the window, never from one behind', async () => {
    const signed = await build();
    const expiresAt = signed.expiresAt as Date;
    await transport.broadcast(signed.rawTransaction);
    node.dropBroadcasts();
    const windowEnd = node.headBlockNumber + (expiresAt.getTime() - node.blockTimestamp()) / 3_000;
    node.mineEmpty(windowEnd - node.headBlockNumber + SOLID_LAG + 1);
    // A backend stopped inside the window: its solidified head (forwarded) is past the
    // expiration, its blocks after the stop read as missing. A mixed view proves nothing.
    const lagging = await TronProxy.start(node.url);
    const down = await TronProxy.start(node.url);
    proxies.push(lagging, down);
    lagging.headCap = windowEnd - 5;
    const laggingOnly = new TronNodePayoutTransport(networkWith([lagging.url]), {
      retry: FAST_RETRY,
    });
    expect(await laggingOnly.provenExpired(signed.rawTransaction)).toBe(false);

    const both = new TronNodePayoutTransport(networkWith([lagging.url, node.url]), {
      retry: FAST_RETRY,
    });
    expect(await both.provenExpired(signed.rawTransaction)).toBe(true);

    // An unreachable URL first in the list blocks nothing.
    const deadUrl = down.url;
    await down.stop();
    const withDead = new TronNodePayoutTransport(networkWith([deadUrl, node.url]), {
      retry: FAST_RETRY,
    });
    expect(await withDead.provenExpired(signed.rawTransaction)).toBe(true);
  });

  it('reports a signature the node refuses as rejected, in its words', async () => {
    const signed = await build();
    const transaction = JSON.parse(signed.rawTransaction);
    const forged = utils.crypto.signTransaction(OTHER_PRIVATE_KEY, {
      ...transaction,
      signature: [],
    });

    const result = await transport.broadcast(JSON.stringify(forged));

    expect(result).toEqual({
      kind: 'rejected',
      reason: expect.stringMatching(/^SIGERROR: Validate signature error: /),
    });
    expect(node.pendingTxIds).toEqual([]);
  });

  it('throws a transient ChainError when the node does not answer a broadcast', async () => {
    const signed = await build();
    await node.down('unavailable');

    const error = await thrown(() => transport.broadcast(signed.rawTransaction));

    expect(error).toBeInstanceOf(ChainError);
    expect(error).toMatchObject({ kind: 'transient', network: 'TRON' });
    expect(error.message).not.toContain(node.url);
    await node.up();
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
  });

  it('reads token and TRX balances; an account that does not exist holds nothing', async () => {
    expect(await transport.balances(HOT, USDT)).toEqual({
      token: 1_000_000_000n,
      native: 50_000_000n,
    });
    expect(await transport.balances(RECIPIENT, USDT)).toEqual({ token: 0n, native: 0n });
    node.setTrxBalance(RECIPIENT, 0n);
    expect((await transport.balances(RECIPIENT, USDT)).native).toBe(0n);
  });

  it('refuses a key of another address before any request, never showing the key', async () => {
    const misfiled = new HotWalletKey('TRON', RECIPIENT, HOT_PRIVATE_KEY);
    const garbage = new HotWalletKey('TRON', HOT, `${HOT_PRIVATE_KEY.slice(0, 60)}zzzz`);

    const errors = [
      await thrown(() => transport.buildAndSign(misfiled, order(), FEE_LIMIT_SUN)),
      await thrown(() => transport.buildAndSign(garbage, order(), FEE_LIMIT_SUN)),
    ];

    expect(errors[0].message).toContain('does not belong to');
    expect(errors[1].message).toContain('not a valid private key');
    expect(node.requests).toEqual([]);
    for (const error of errors) {
      expect(`${error.message} ${error.stack}`).not.toContain(HOT_PRIVATE_KEY.slice(0, 60));
    }
  });
});
