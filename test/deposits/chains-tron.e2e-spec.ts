import { createHash } from 'node:crypto';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { TronWeb, utils } from 'tronweb';
import { TronChainAdapter } from '@app/chains/adapters/tron/tron-chain-adapter';
import { deriveTronAddress, TRON_ACCOUNT_PATH } from '@app/chains/hd/derivation';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { NetworkConfig } from '@app/chains/networks/network.types';
import { ChainError, NotYetError } from '@app/chains/rpc/chain-error';
import { RetryOptions } from '@app/chains/rpc/retry';
import { FakeTronNode, FakeTransfer } from '../support/fake-tron-node';
import { TronProxy } from '../support/tron-proxy';

// Fixed test keys (hashes of labels): they never hold funds anywhere.
const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string => {
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('invalid test key');
  return address;
};
const PAYER_KEY = testKey('tron e2e payer');
const PAYER = addressOf(PAYER_KEY);
const MERCHANT = addressOf(testKey('tron e2e merchant'));
const OTHER = addressOf(testKey('tron e2e other'));
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
// Mainnet USDT's address: on this fake chain, just some other TRC-20 contract.
const OTHER_TOKEN = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 1_000 };
const TX_ID = /^[0-9a-f]{64}$/;
// The BIP-39 test mnemonic "abandon ... about": its m/44'/195'/0'/0/0 is a published vector.
const ABANDON_TRON_XPUB = HDNodeWallet.fromSeed(
  Mnemonic.fromPhrase(
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  ).computeSeed(),
)
  .derivePath(TRON_ACCOUNT_PATH)
  .neuter().extendedKey;

const networkWith = (rpcUrls: string[]): NetworkConfig => ({
  ...TESTNET_NETWORKS.TRON,
  rpcUrls,
  publicRpcUrl: rpcUrls[0],
});
const transfer = (amount: bigint, contract = USDT, to = MERCHANT): FakeTransfer => ({
  contract,
  from: PAYER,
  to,
  amount,
});
const failure = (promise: Promise<unknown>): Promise<ChainError> =>
  promise.then(
    () => {
      throw new Error('expected a ChainError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(ChainError);
      return error as ChainError;
    },
  );

describe('TronChainAdapter against the fake TRON node', () => {
  let node: FakeTronNode;
  let adapter: TronChainAdapter;
  const extraNodes: FakeTronNode[] = [];

  beforeEach(async () => {
    node = new FakeTronNode();
    adapter = new TronChainAdapter(networkWith([await node.start()]), { retry: FAST_RETRY });
  });

  afterEach(async () => {
    await adapter.close();
    await Promise.all([node, ...extraNodes.splice(0)].map((fake) => fake.stop()));
  });

  async function startExtraNode(): Promise<FakeTronNode> {
    const extra = new FakeTronNode();
    extraNodes.push(extra);
    await extra.start();
    return extra;
  }

  it('reads the head and the canonical block hashes', async () => {
    node.mineEmpty(3);

    expect(await adapter.getHeadBlockNumber()).toBe(3);
    const hash = await adapter.getBlockHash(2);
    expect(hash).toBe(node.blockId(2));
    expect(hash).toMatch(/^0{15}2[0-9a-f]{48}$/);
    expect(await adapter.getBlockHash(0)).toBe(node.blockId(0));
    expect(await adapter.getBlockHash(4)).toBeNull();
  });

  it('returns exactly the transfers of the watched token, with TRON formats', async () => {
    node.mineEmpty(1);
    const small = node.addTransferBlock([transfer(12_345_678n)]);
    const large = node.addTransferBlock([transfer(10n ** 30n)]);
    node.mineEmpty(1);

    const transfers = await adapter.scanTransfers(1, 4, [USDT]);

    expect(transfers).toEqual([
      {
        tokenContract: USDT,
        from: PAYER,
        to: MERCHANT,
        amountBaseUnits: 12_345_678n,
        txHash: small.txIds[0],
        logIndex: 0,
        blockNumber: small.blockNumber,
        blockHash: node.blockId(small.blockNumber),
      },
      expect.objectContaining({ amountBaseUnits: 10n ** 30n, txHash: large.txIds[0] }),
    ]);
    for (const found of transfers) {
      expect(found.txHash).toMatch(TX_ID);
      expect(TronWeb.isAddress(found.from) && adapter.isValidAddress(found.to)).toBe(true);
    }
  });

  it('never takes a block whose transaction infos a backend behind left out for an empty one', async () => {
    node.mineEmpty(1);
    const paid = node.addTransferBlock([transfer(12_345_678n)]);
    node.mineEmpty(2);
    const proxy = await TronProxy.start(node.url);
    const viaBalancer = new TronChainAdapter(networkWith([proxy.url]), { retry: FAST_RETRY });
    try {
      proxy.infosMissingFrom = paid.blockNumber;
      const notYet = viaBalancer.scanTransfers(paid.blockNumber, paid.blockNumber + 2, [USDT]);
      await expect(notYet).rejects.toBeInstanceOf(NotYetError);
      // Empty blocks read as empty stay empty; the paid one is found once its infos are there.
      expect(
        await viaBalancer.scanTransfers(paid.blockNumber + 1, paid.blockNumber + 2, [USDT]),
      ).toEqual([]);
      proxy.infosMissingFrom = undefined;
      expect(
        await viaBalancer.scanTransfers(paid.blockNumber, paid.blockNumber + 2, [USDT]),
      ).toEqual([expect.objectContaining({ txHash: paid.txIds[0] })]);
    } finally {
      await viaBalancer.close();
      await proxy.stop();
    }
  });

  it('orders several transfers of a block and gives the logs of one transaction distinct indexes', async () => {
    const block = node.addTransferBlock([
      transfer(1n),
      [transfer(2n), transfer(3n, USDT, OTHER)],
      transfer(4n, OTHER_TOKEN),
      [transfer(5n, OTHER_TOKEN), transfer(6n)],
    ]);

    const transfers = await adapter.scanTransfers(block.blockNumber, block.blockNumber, [USDT]);

    expect(
      transfers.map(({ amountBaseUnits, txHash, logIndex, to }) => ({
        amountBaseUnits,
        txHash,
        logIndex,
        to,
      })),
    ).toEqual([
      { amountBaseUnits: 1n, txHash: block.txIds[0], logIndex: 0, to: MERCHANT },
      { amountBaseUnits: 2n, txHash: block.txIds[1], logIndex: 0, to: MERCHANT },
      { amountBaseUnits: 3n, txHash: block.txIds[1], logIndex: 1, to: OTHER },
      // The log's position in its transaction counts the other token's log before it.
      { amountBaseUnits: 6n, txHash: block.txIds[3], logIndex: 1, to: MERCHANT },
    ]);
    const both = await adapter.scanTransfers(block.blockNumber, block.blockNumber, [
      USDT,
      OTHER_TOKEN,
    ]);
    expect(both.map((found) => [found.tokenContract, found.amountBaseUnits])).toEqual([
      [USDT, 1n],
      [USDT, 2n],
      [USDT, 3n],
      [OTHER_TOKEN, 4n],
      [OTHER_TOKEN, 5n],
      [USDT, 6n],
    ]);
  });

  it('returns nothing for other contracts, empty blocks and empty ranges', async () => {
    node.addTransferBlock([transfer(7n, OTHER_TOKEN)]);
    node.mineEmpty(2);

    expect(await adapter.scanTransfers(0, 3, [USDT])).toEqual([]);
    const requestsBefore = node.requests.length;
    expect(await adapter.scanTransfers(3, 2, [USDT])).toEqual([]);
    expect(await adapter.scanTransfers(1, 3, [])).toEqual([]);
    expect(node.requests).toHaveLength(requestsBefore);
  });

  it('refuses ranges beyond the head (transient) and wider than maxScanRange (permanent)', async () => {
    node.mineEmpty(2);

    expect((await failure(adapter.scanTransfers(1, 3, [USDT]))).kind).toBe('transient');
    const wide = await failure(adapter.scanTransfers(0, adapter.maxScanRange, [USDT]));
    expect(wide.kind).toBe('permanent');
    expect((await failure(adapter.scanTransfers(0, 1, ['not-an-address']))).kind).toBe('permanent');
  });

  it('sees a reorg: the block hash changes and the transfer is gone', async () => {
    const { blockNumber } = node.addTransferBlock([transfer(8n)]);
    node.mineEmpty(2);
    const before = await adapter.getBlockHash(blockNumber);

    node.reorg(blockNumber);

    const after = await adapter.getBlockHash(blockNumber);
    expect(after).toMatch(TX_ID);
    expect(after).not.toBe(before);
    expect(await adapter.scanTransfers(blockNumber, blockNumber + 2, [USDT])).toEqual([]);
  });

  it('derives the pay addresses of an xpub like libs/chains hd derivation', () => {
    expect(adapter.deriveAddress(ABANDON_TRON_XPUB, 0)).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(adapter.deriveAddress(ABANDON_TRON_XPUB, 42)).toBe(
      deriveTronAddress(ABANDON_TRON_XPUB, 42),
    );
    expect(adapter.isValidAddress(adapter.deriveAddress(ABANDON_TRON_XPUB, 42))).toBe(true);
  });

  it('reports the status of a mined transfer, its confirmations growing with the chain', async () => {
    node.mineEmpty(2);
    const { blockNumber, txIds } = node.addTransferBlock([transfer(1n), transfer(2n)]);

    const status = await adapter.getTransactionStatus(txIds[1]);

    expect(status).toEqual({
      blockNumber,
      blockHash: node.blockId(blockNumber),
      succeeded: true,
      confirmations: 1,
    });
    node.mineEmpty(4);
    expect(await adapter.getTransactionStatus(txIds[1].toUpperCase())).toEqual({
      ...status,
      confirmations: 5,
    });
    expect(node.requests.map((request) => request.path).slice(-3)).toEqual([
      '/wallet/gettransactioninfobyid',
      '/wallet/getblockbynum',
      '/wallet/getnowblock',
    ]);
  });

  it('reports failed transfers as not succeeded', async () => {
    const { blockNumber, txIds } = node.addTransferBlock([
      { ...transfer(3n), failure: 'REVERT' },
      { ...transfer(4n), failure: 'OUT_OF_ENERGY' },
    ]);
    node.mineEmpty(1);

    for (const txId of txIds) {
      expect(await adapter.getTransactionStatus(txId)).toEqual({
        blockNumber,
        blockHash: node.blockId(blockNumber),
        succeeded: false,
        confirmations: 2,
      });
    }
    expect(await adapter.scanTransfers(blockNumber, blockNumber, [USDT])).toEqual([]);
  });

  it('returns null for an unknown id and for a transaction reorged away', async () => {
    const { blockNumber, txIds } = node.addTransferBlock([transfer(5n)]);
    node.mineEmpty(1);
    expect(await adapter.getTransactionStatus('ab'.repeat(32))).toBeNull();
    expect(await adapter.getTransactionStatus(txIds[0])).not.toBeNull();

    node.reorg(blockNumber);

    expect(await adapter.getTransactionStatus(txIds[0])).toBeNull();
    expect((await failure(adapter.getTransactionStatus(`0x${txIds[0]}`))).kind).toBe('permanent');
  });

  it('reports transaction status failures like every other call', async () => {
    const { txIds } = node.addTransferBlock([transfer(6n)]);
    const unavailable = await startExtraNode();
    await unavailable.down('unavailable');
    const failover = new TronChainAdapter(networkWith([unavailable.url, node.url]), {
      retry: FAST_RETRY,
    });
    expect((await failover.getTransactionStatus(txIds[0]))?.succeeded).toBe(true);

    await node.down('rate-limited');
    expect((await failure(adapter.getTransactionStatus(txIds[0]))).kind).toBe('transient');
  });

  it('fails over to the next URL and stays there while it works', async () => {
    const unavailable = await startExtraNode();
    await unavailable.down('unavailable');
    const refusing = await startExtraNode();
    await refusing.down('refuse');
    node.mineEmpty(5);
    const failover = new TronChainAdapter(networkWith([unavailable.url, refusing.url, node.url]), {
      retry: FAST_RETRY,
      apiKey: 'secret-trongrid-key',
    });

    expect(await failover.getHeadBlockNumber()).toBe(5);
    expect(await failover.getBlockHash(5)).toBe(node.blockId(5));
    expect(unavailable.requests).toHaveLength(1);
    expect(node.requests.map((request) => request.path)).toEqual([
      '/wallet/getnowblock',
      '/wallet/getblockbynum',
    ]);
    // The TronGrid key goes to TronGrid hosts only.
    expect(node.requests[0].headers['tron-pro-api-key']).toBeUndefined();
  });

  it.each(['unavailable', 'refuse', 'hang', 'rate-limited'] as const)(
    'reports a transient error when every node is down (%s) and recovers after up()',
    async (outage) => {
      const quick = new TronChainAdapter(networkWith([node.url]), {
        retry: { ...FAST_RETRY, timeoutMs: 200 },
      });
      await node.down(outage);

      const error = await failure(quick.getHeadBlockNumber());
      expect(error.kind).toBe('transient');
      expect(error.network).toBe('TRON');

      await node.up();
      expect(await quick.getHeadBlockNumber()).toBe(0);
    },
  );

  it('reports an HTTP 4xx as permanent', async () => {
    const misconfigured = new TronChainAdapter(networkWith([`${node.url}/no-such-prefix`]), {
      retry: FAST_RETRY,
    });

    const error = await failure(misconfigured.getHeadBlockNumber());

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('HTTP 404');
    expect(node.requests).toHaveLength(1);
  });
});

describe('FakeTronNode broadcast, verified with tronweb', () => {
  let node: FakeTronNode;
  let tronWeb: TronWeb;

  beforeEach(async () => {
    node = new FakeTronNode();
    tronWeb = new TronWeb({ fullHost: await node.start() });
    node.mineEmpty(3);
    // java-tron refuses a transaction whose owner is no account (never activated).
    node.setTrxBalance(PAYER, 100_000_000n);
  });

  afterEach(() => node.stop());

  async function unsignedTransfer(amount: number) {
    const built = await tronWeb.transactionBuilder.triggerSmartContract(
      USDT,
      'transfer(address,uint256)',
      { feeLimit: 100_000_000 },
      [
        { type: 'address', value: MERCHANT },
        { type: 'uint256', value: amount },
      ],
      PAYER,
    );
    expect(built.result.result).toBe(true);
    return built.transaction;
  }

  it('accepts a TRC-20 transfer built and signed by tronweb with the owner key', async () => {
    const transaction = await unsignedTransfer(1_000_000);
    expect(transaction.raw_data.ref_block_hash).toBe(node.blockId(3)?.slice(16, 32));
    const signed = await tronWeb.trx.sign(transaction, PAYER_KEY);

    const result = await tronWeb.trx.sendRawTransaction(signed);

    expect(result).toMatchObject({ result: true, txid: transaction.txID });
    expect(node.broadcasts.map((accepted) => accepted.txid)).toEqual([transaction.txID]);
    const again = await tronWeb.trx.sendRawTransaction(signed);
    expect(again).toMatchObject({ code: 'DUP_TRANSACTION_ERROR', txid: transaction.txID });
  });

  it('refuses a signature by another key, and a transaction changed after signing', async () => {
    const otherKey = testKey('tron e2e other');
    // tronweb's own sign() refuses a key that does not own the transaction: sign lower down.
    const forged = utils.crypto.signTransaction(otherKey, await unsignedTransfer(2_000_000));
    const refused = await tronWeb.trx.sendRawTransaction(forged);

    expect(refused).toMatchObject({ code: 'SIGERROR', txid: forged.txID });
    expect(refused.result).toBeUndefined();
    expect(TronWeb.toUtf8(refused.message)).toBe(
      `Validate signature error: ${forged.signature[0]} is signed by ${OTHER} but it is not contained of permission.`,
    );

    const signed = await tronWeb.trx.sign(await unsignedTransfer(3_000_000), PAYER_KEY);
    const tampered = { ...signed, raw_data: { ...signed.raw_data, fee_limit: 1 } };
    const changed = await tronWeb.trx.sendRawTransaction(tampered);
    expect(changed.code).toBe('SIGERROR');
    expect(changed.txid).not.toBe(signed.txID);
    expect(node.broadcasts).toEqual([]);
  });

  it('mines accepted broadcasts on request, with the Transfer log of their call', async () => {
    const adapter = new TronChainAdapter(networkWith([node.url]), { retry: FAST_RETRY });
    const signed = await tronWeb.trx.sign(await unsignedTransfer(4_000_000), PAYER_KEY);
    await tronWeb.trx.sendRawTransaction(signed);
    expect(await adapter.getTransactionStatus(signed.txID)).toBeNull();

    const mined = node.mineBroadcasts();

    expect(mined.txIds).toEqual([signed.txID]);
    expect(await adapter.getTransactionStatus(signed.txID)).toEqual({
      blockNumber: mined.blockNumber,
      blockHash: node.blockId(mined.blockNumber),
      succeeded: true,
      confirmations: 1,
    });
    const transfers = await adapter.scanTransfers(mined.blockNumber, mined.blockNumber, [USDT]);
    expect(transfers).toEqual([
      expect.objectContaining({
        from: PAYER,
        to: MERCHANT,
        amountBaseUnits: 4_000_000n,
        txHash: signed.txID,
      }),
    ]);
    const block = await tronWeb.trx.getBlockByNumber(mined.blockNumber);
    expect(block.transactions?.[0]?.signature).toEqual(signed.signature);
    expect(node.mineBroadcasts().txIds).toEqual([]);
  });
});
