import { Authorization, HDNodeWallet, Wallet } from 'ethers';
import { DataSource } from 'typeorm';
import { EthersPayoutTransport, PostgresNonceProofs } from '@app/chains';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { DEVNET_ACCOUNTS, Devnet, startDevnet } from '../support/devnet';
import { RpcProxy, rpcErrorReply } from '../support/rpc-proxy';

/*
 * A gas top-up sweep ends "abandoned" only when the deposit address's nonce is proven used by a
 * transaction that is not its transfer (nonceConsumer). An EIP-7702 authorization the address
 * signed takes its nonce too, inside someone else's type-4 transaction: that transaction is the
 * consumer, found in the block that used the nonce (review 2, sweeps gap). A type-4 transaction
 * is mined with its invalid authorizations skipped, so only one signed for this chain (or any
 * chain), by the address, in a block whose counts prove the nonce used there, is a consumer
 * (sweeps review M1): never one signed for another chain, nor one replayed with a stale nonce.
 */
describe('nonceConsumer finds a nonce taken by an EIP-7702 authorization', () => {
  let devnet: Devnet;
  let proxy: RpcProxy;
  let transport: EthersPayoutTransport;
  /** Through the proxy: a node that keeps state only for blocks from `prunedBelow` up. */
  let pruned: EthersPayoutTransport;
  let prunedBelow = 0;
  /** Also no state by block hash (EIP-1898): a node that pruned every block below the head. */
  let prunedByHash = false;
  let database: DataSource;

  beforeAll(async () => {
    devnet = await startDevnet();
    proxy = await RpcProxy.start(devnet.rpcUrl);
    proxy.intercept((request) => {
      if (request.method !== 'eth_getTransactionCount') return undefined;
      const tag = request.params?.[1];
      if (typeof tag === 'string' && tag.startsWith('0x') && Number(tag) < prunedBelow) {
        return rpcErrorReply(request, -32000, 'missing trie node');
      }
      if (prunedByHash && typeof tag === 'object' && tag !== null) {
        return rpcErrorReply(request, -32000, 'missing trie node');
      }
      return undefined;
    });
    database = await new DataSource({ type: 'postgres', url: TEST_DATABASE_URL }).initialize();
    transport = new EthersPayoutTransport(devnet.networkConfig());
    pruned = new EthersPayoutTransport(devnet.networkConfig({ rpcUrls: [proxy.url] }));
  }, 60_000);

  afterAll(async () => {
    await transport?.close();
    await pruned?.close();
    await proxy?.stop();
    await devnet?.stop();
    await database?.destroy();
  });

  afterEach(() => {
    prunedBelow = 0;
    prunedByHash = false;
  });

  /** A payer's type-4 transaction carrying `authorizations`, mined; its hash and block. */
  async function carry(authorizations: Authorization[]): Promise<{ hash: string; block: number }> {
    const sent = await devnet.payer.sendTransaction({
      type: 4,
      to: DEVNET_ACCOUNTS.payer.address,
      authorizationList: authorizations,
    });
    const receipt = (await sent.wait())!;
    return { hash: sent.hash.toLowerCase(), block: receipt.blockNumber };
  }

  /** A fresh address with a little ETH, and its own plain transaction with nonce 0, mined. */
  async function usedByOwnTransaction(): Promise<{ address: HDNodeWallet; hash: string }> {
    const address = Wallet.createRandom(devnet.provider);
    await (await devnet.payer.sendTransaction({ to: address.address, value: 10n ** 16n })).wait();
    const own = await address.sendTransaction({ to: address.address, value: 0n, nonce: 0 });
    await own.wait();
    return { address, hash: own.hash.toLowerCase() };
  }

  it("names the type-4 transaction that carried the address's authorization", async () => {
    const address = Wallet.createRandom();
    const authorization = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId,
    });
    const carried = await carry([authorization]);
    expect(await transport.transactionCount(address.address, 'latest')).toBe(1);

    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({
      txHash: carried.hash,
      blockNumber: carried.block,
    });
    // A nonce it has not used yet has no consumer.
    expect(await transport.nonceConsumer(address.address, 1)).toBeNull();
    // Read again (from the block found), the proof holds.
    await devnet.mine(3);
    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({
      txHash: carried.hash,
      confirmations: 4,
    });
  });

  it("takes an authorization signed for another chain's id for no consumer", async () => {
    const { address, hash } = await usedByOwnTransaction();
    // The address's tuple for another chain, copied here above the block that used the nonce:
    // mined, skipped by the chain, it took nothing.
    const elsewhere = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId + 1,
    });
    await carry([elsewhere]);
    expect(await transport.transactionCount(address.address, 'latest')).toBe(1);
    await devnet.mine(2);

    // A node without state below the head reads the bodies from the head down.
    prunedBelow = await devnet.head();
    expect(await pruned.nonceConsumer(address.address, 0)).toMatchObject({ txHash: hash });
    prunedBelow = 0;
    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({ txHash: hash });
  });

  it("names the authorization applied, not another chain's before it in the same block", async () => {
    const address = Wallet.createRandom();
    const elsewhere = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId + 1,
    });
    const here = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId,
    });
    // Both in the block that used the nonce, the other chain's first.
    await devnet.provider.send('evm_setAutomine', [false]);
    let first: string;
    let second: string;
    try {
      first = (await sendType4([elsewhere])).toLowerCase();
      second = (await sendType4([here])).toLowerCase();
      await devnet.provider.send('evm_mine', []);
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
    const receipts = await Promise.all(
      [first, second].map((hash) => devnet.provider.getTransactionReceipt(hash)),
    );
    expect(receipts[0]!.blockNumber).toBe(receipts[1]!.blockNumber);
    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({ txHash: second });
  });

  it('takes a replayed authorization, its nonce stale, for no consumer', async () => {
    const address = Wallet.createRandom();
    const authorization = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId,
    });
    const applied = await carry([authorization]);
    // The same signed tuple again: a valid signature, for this chain, with a used nonce.
    const replayed = await carry([authorization]);
    expect(await transport.transactionCount(address.address, 'latest')).toBe(1);
    await devnet.mine(2);

    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({
      txHash: applied.hash,
    });
    // Without state to prove which block applied it, no authorization is a proof: the replay
    // above the one applied would be found first.
    prunedBelow = await devnet.head();
    expect(await pruned.nonceConsumer(address.address, 0)).toBeNull();
    expect(replayed.block).toBeGreaterThan(applied.block);
  });

  it('names the authorization applied, not a copy mined before the address reached its nonce', async () => {
    // In one block: the payer's type-4 transaction with the address's authorization for nonce 1
    // (skipped: the address is at 0), the address's own transaction with nonce 0, then the
    // payer's next type-4 transaction with the same authorization (applied: it is at 1 now).
    // Ordered by tip (anvil orders a block by fees, one sender's by nonce).
    const address = Wallet.createRandom(devnet.provider);
    await (await devnet.payer.sendTransaction({ to: address.address, value: 10n ** 16n })).wait();
    const authorization = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 1,
      chainId: devnet.chainId,
    });
    const gwei = 10n ** 9n;
    await devnet.provider.send('evm_setAutomine', [false]);
    let skipped: string;
    let own: string;
    let applied: string;
    try {
      skipped = (await sendType4([authorization], 30n * gwei)).toLowerCase();
      own = (
        await address.sendTransaction({
          to: address.address,
          value: 0n,
          nonce: 0,
          maxPriorityFeePerGas: 20n * gwei,
          maxFeePerGas: 200n * gwei,
        })
      ).hash.toLowerCase();
      applied = (await sendType4([authorization], 10n * gwei)).toLowerCase();
      await devnet.provider.send('evm_mine', []);
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
    const receipts = await Promise.all(
      [skipped, own, applied].map((hash) => devnet.provider.getTransactionReceipt(hash)),
    );
    expect(receipts.map((receipt) => receipt!.blockNumber)).toEqual(
      Array(3).fill(receipts[0]!.blockNumber),
    );
    expect(receipts.map((receipt) => receipt!.index)).toEqual([0, 1, 2]);
    expect(await transport.transactionCount(address.address, 'latest')).toBe(2);

    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({ txHash: own });
    expect(await transport.nonceConsumer(address.address, 1)).toMatchObject({ txHash: applied });
  });

  it('keeps a proof across a restart: a node without the state to prove it again still has it', async () => {
    const proofs = new PostgresNonceProofs(database);
    const address = Wallet.createRandom();
    const authorization = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId,
    });
    const carried = await carry([authorization]);
    const owner = address.address.toLowerCase();
    try {
      // Proven once, not yet deep: stored.
      const before = new EthersPayoutTransport(devnet.networkConfig({ rpcUrls: [proxy.url] }), {
        proofs,
      });
      expect(await before.nonceConsumer(address.address, 0)).toMatchObject({
        txHash: carried.hash,
        confirmations: 1,
      });
      await before.close();
      expect(await proofs.find(devnet.networkConfig().name, owner, 0)).toMatchObject({
        txHash: carried.hash,
        blockNumber: carried.block,
        byAuthorization: true,
      });

      // A new process on a node that has pruned the block's state: without the stored proof
      // the authorization proves nothing (its bodies alone are no proof).
      await devnet.mine(3);
      prunedBelow = await devnet.head();
      prunedByHash = true;
      const memoryOnly = new EthersPayoutTransport(devnet.networkConfig({ rpcUrls: [proxy.url] }));
      const restarted = new EthersPayoutTransport(devnet.networkConfig({ rpcUrls: [proxy.url] }), {
        proofs,
      });
      try {
        expect(await memoryOnly.nonceConsumer(address.address, 0)).toBeNull();
        const carrier = await devnet.provider.getBlock(carried.block);
        expect(await restarted.nonceConsumer(address.address, 0)).toEqual({
          txHash: carried.hash,
          blockNumber: carried.block,
          // The block the proof names: a caller checks it is the chain's (review r8, F2).
          blockHash: carrier!.hash!.toLowerCase(),
          confirmations: 4,
        });
      } finally {
        await memoryOnly.close();
        await restarted.close();
      }
    } finally {
      await database.query(`DELETE FROM nonce_proofs WHERE address = $1`, [owner]);
    }
  });

  /** Sends a payer's type-4 transaction without waiting for a block; its hash. */
  async function sendType4(authorizations: Authorization[], tip?: bigint): Promise<string> {
    const sent = await devnet.payer.sendTransaction({
      type: 4,
      to: DEVNET_ACCOUNTS.payer.address,
      authorizationList: authorizations,
      gasLimit: 100_000n,
      ...(tip === undefined ? {} : { maxPriorityFeePerGas: tip, maxFeePerGas: 200n * 10n ** 9n }),
    });
    return sent.hash;
  }
});
