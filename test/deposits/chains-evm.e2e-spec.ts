import { Contract, ContractTransactionResponse, HDNodeWallet, Mnemonic, Wallet } from 'ethers';
import { deriveEvmAddress, EVM_ACCOUNT_PATH } from '@app/chains/hd/derivation';
import { EvmChainAdapter } from '@app/chains/adapters/evm/evm-chain-adapter';
import { ChainError } from '@app/chains/rpc/chain-error';
import { RetryOptions } from '@app/chains/rpc/retry';
import { Devnet, startDevnet } from '../support/devnet';
import { rpcErrorReply, rpcResultReply, RpcProxy } from '../support/rpc-proxy';

// A few milliseconds between attempts: the suite tests failure paths, not patience.
const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2_000 };
const HASH = /^0x[0-9a-f]{64}$/;
// anvil's own mnemonic: index 1 of its m/44'/60'/0' account is the devnet payer.
const ANVIL_XPUB = HDNodeWallet.fromSeed(
  Mnemonic.fromPhrase('test test test test test test test test test test test junk').computeSeed(),
)
  .derivePath(EVM_ACCOUNT_PATH)
  .neuter().extendedKey;
const TRANSFER_ABI = ['function transfer(address to, uint256 amount) returns (bool)'];

describe('EvmChainAdapter against anvil', () => {
  let devnet: Devnet;
  let proxy: RpcProxy;
  let adapter: EvmChainAdapter;
  const adapters: EvmChainAdapter[] = [];

  function createAdapter(rpcUrls: string[]): EvmChainAdapter {
    const created = new EvmChainAdapter(devnet.networkConfig({ rpcUrls }), { retry: FAST_RETRY });
    adapters.push(created);
    return created;
  }

  async function expectChainError(promise: Promise<unknown>, kind: 'transient' | 'permanent') {
    const error: unknown = await promise.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(ChainError);
    expect((error as ChainError).kind).toBe(kind);
    expect((error as ChainError).network).toBe('ETHEREUM');
    return error as ChainError;
  }

  const newAddress = () => Wallet.createRandom().address;

  beforeAll(async () => {
    devnet = await startDevnet();
    proxy = await RpcProxy.start(devnet.rpcUrl);
    adapter = createAdapter([devnet.rpcUrl]);
  });

  afterAll(async () => {
    await Promise.all(adapters.map((created) => created.close()));
    await proxy?.stop();
    await devnet?.stop();
  });

  afterEach(async () => {
    proxy.intercept(undefined);
    await proxy.up();
  });

  it('reads the head and block hashes, null beyond the head', async () => {
    await devnet.mine(2);
    const head = await adapter.getHeadBlockNumber();
    expect(head).toBe(await devnet.head());

    const hash = await adapter.getBlockHash(head);
    expect(hash).toMatch(HASH);
    expect(hash).toBe((await devnet.provider.getBlock(head))?.hash);
    expect(await adapter.getBlockHash(head - 1)).not.toBe(hash);
    expect(await adapter.getBlockHash(head + 1)).toBeNull();
  });

  it("tells from a block's header (logsBloom) whether it may hold a transfer of the tokens", async () => {
    const { blockNumber } = await devnet.transfer('USDC', newAddress(), '1');
    await devnet.mine(1);
    const [withTransfer, empty] = await Promise.all([
      adapter.getBlockLink(blockNumber),
      adapter.getBlockLink(blockNumber + 1),
    ]);
    expect(withTransfer?.parentHash).toBe(await adapter.getBlockHash(blockNumber - 1));
    const { USDT, USDC } = devnet.tokens;
    expect(adapter.mayHoldTransfers(withTransfer!, [USDC.contract])).toBe(true);
    expect(adapter.mayHoldTransfers(withTransfer!, [USDT.contract, USDC.contract])).toBe(true);
    // The proof an empty eth_getLogs answer cannot give: this block has no transfer of them.
    expect(adapter.mayHoldTransfers(empty!, [USDT.contract, USDC.contract])).toBe(false);
    expect(adapter.mayHoldTransfers(withTransfer!, [newAddress()])).toBe(false);
    // A node that gives no bloom proves nothing.
    expect(adapter.mayHoldTransfers({ ...empty!, logsBloom: undefined }, [USDT.contract])).toBe(
      true,
    );
  });

  it('finds an exact transfer with its amount in base units', async () => {
    const recipient = newAddress();
    const sent = await devnet.transfer('USDT', recipient.toLowerCase(), '12.345678');

    const transfers = await adapter.scanTransfers(sent.blockNumber, sent.blockNumber, [
      devnet.tokens.USDT.contract,
      devnet.tokens.USDC.contract,
    ]);

    expect(transfers).toEqual([
      {
        tokenContract: devnet.tokens.USDT.contract,
        from: devnet.accounts.payer.address,
        to: recipient,
        toKey: recipient.toLowerCase(),
        amountBaseUnits: 12_345_678n,
        txHash: sent.txHash,
        logIndex: 0,
        blockNumber: sent.blockNumber,
        blockHash: await adapter.getBlockHash(sent.blockNumber),
      },
    ]);
    expect(transfers[0].txHash).toMatch(HASH);
  });

  it('tells apart two transfers in one block by their log index, in order', async () => {
    const [first, second] = [newAddress(), newAddress()];
    const sent = await devnet.transferMany([
      { currency: 'USDC', to: first, amount: '1' },
      { currency: 'USDT', to: second, amount: '0.000001' },
    ]);
    expect(sent[1].blockNumber).toBe(sent[0].blockNumber);

    const transfers = await adapter.scanTransfers(sent[0].blockNumber, sent[0].blockNumber, [
      devnet.tokens.USDT.contract,
      devnet.tokens.USDC.contract,
    ]);

    expect(transfers.map((transfer) => [transfer.to, transfer.amountBaseUnits])).toEqual([
      [first, 1_000_000n],
      [second, 1n],
    ]);
    expect(transfers[0].logIndex).toBeLessThan(transfers[1].logIndex);
    expect(transfers[0].txHash).not.toBe(transfers[1].txHash);
  });

  it("ignores other contracts' transfers", async () => {
    const recipient = newAddress();
    const sent = await devnet.transferMany([
      { currency: 'USDC', to: recipient, amount: '5' },
      { currency: 'USDT', to: recipient, amount: '7' },
    ]);

    const transfers = await adapter.scanTransfers(sent[0].blockNumber, sent[0].blockNumber, [
      devnet.tokens.USDT.contract,
    ]);

    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      tokenContract: devnet.tokens.USDT.contract,
      amountBaseUnits: 7_000_000n,
    });
  });

  it('returns nothing for a range without transfers or without contracts', async () => {
    const sent = await devnet.transfer('USDT', newAddress(), '1');
    await devnet.mine(3);
    const contracts = [devnet.tokens.USDT.contract];

    expect(
      await adapter.scanTransfers(sent.blockNumber + 1, sent.blockNumber + 3, contracts),
    ).toEqual([]);
    expect(await adapter.scanTransfers(sent.blockNumber, sent.blockNumber, [])).toEqual([]);
  });

  it('refuses a range reaching past the head as transient, never as a partial answer', async () => {
    const head = await devnet.head();
    const contracts = [devnet.tokens.USDT.contract];

    const error = await expectChainError(
      adapter.scanTransfers(head, head + 5, contracts),
      'transient',
    );
    expect(error.message).toContain('beyond the head');
    await expectChainError(adapter.scanTransfers(head + 3, head + 5, contracts), 'transient');
  });

  it('rejects bad arguments as permanent without asking the node', async () => {
    const contracts = [devnet.tokens.USDT.contract];
    await expectChainError(adapter.scanTransfers(5, 4, contracts), 'permanent');
    await expectChainError(adapter.scanTransfers(-1, 4, contracts), 'permanent');
    await expectChainError(adapter.scanTransfers(0, 1, ['0x1234']), 'permanent');
    await expectChainError(adapter.getBlockHash(1.5), 'permanent');
    expect(adapter.isValidAddress(devnet.accounts.payer.address)).toBe(true);
    expect(adapter.isValidAddress(devnet.accounts.payer.address.toLowerCase())).toBe(true);
    expect(adapter.isValidAddress('0x70997970c51812dc3A010C7d01b50e0d17dc79C8')).toBe(false);
  });

  it('splits a range the node refuses as too large', async () => {
    const recipient = newAddress();
    const first = await devnet.transfer('USDT', recipient, '1');
    await devnet.mine(2);
    const last = await devnet.transfer('USDC', recipient, '2');
    // Like Infura: more than one block at a time is refused.
    proxy.intercept((request) => {
      const [filter] = (request.params ?? []) as Array<{ fromBlock?: string; toBlock?: string }>;
      if (request.method !== 'eth_getLogs' || filter?.fromBlock === filter?.toBlock) return;
      return rpcErrorReply(request, -32005, 'query returned more than 10000 results');
    });
    const viaProxy = createAdapter([proxy.url]);

    const transfers = await viaProxy.scanTransfers(first.blockNumber, last.blockNumber, [
      devnet.tokens.USDT.contract,
      devnet.tokens.USDC.contract,
    ]);

    expect(transfers.map((transfer) => [transfer.blockNumber, transfer.amountBaseUnits])).toEqual([
      [first.blockNumber, 1_000_000n],
      [last.blockNumber, 2_000_000n],
    ]);
    expect(proxy.methods.filter((method) => method === 'eth_getLogs').length).toBeGreaterThan(4);
  });

  it('fails over to the next RPC URL when the first is dead', async () => {
    await proxy.down('refuse');
    const withDeadFirst = createAdapter([proxy.url, devnet.rpcUrl]);

    expect(await withDeadFirst.getHeadBlockNumber()).toBe(await devnet.head());
    const sent = await devnet.transfer('USDT', newAddress(), '3');
    const transfers = await withDeadFirst.scanTransfers(sent.blockNumber, sent.blockNumber, [
      devnet.tokens.USDT.contract,
    ]);
    expect(transfers).toHaveLength(1);
  });

  it('throws a transient error when every RPC is down, and recovers when it comes back', async () => {
    const viaProxy = createAdapter([proxy.url]);
    expect(await viaProxy.getHeadBlockNumber()).toBe(await devnet.head());

    await proxy.down('refuse');
    await expectChainError(viaProxy.getHeadBlockNumber(), 'transient');
    await proxy.down('unavailable');
    const error = await expectChainError(viaProxy.getBlockHash(1), 'transient');
    expect(error.message).toContain('HTTP 503');
    expect(error.message).not.toContain(proxy.url);

    await proxy.up();
    expect(await viaProxy.getHeadBlockNumber()).toBe(await devnet.head());
  });

  it('treats rate limits as transient and invalid answers as permanent, without retrying', async () => {
    const viaProxy = createAdapter([proxy.url]);
    proxy.intercept(() => ({ status: 429, body: 'slow down' }));
    await expectChainError(viaProxy.getHeadBlockNumber(), 'transient');

    proxy.intercept((request) => rpcErrorReply(request, -32005, 'rate limit exceeded'));
    await expectChainError(viaProxy.getHeadBlockNumber(), 'transient');

    proxy.intercept((request) => rpcResultReply(request, 'not a number'));
    const callsBefore = proxy.methods.length;
    await expectChainError(viaProxy.getHeadBlockNumber(), 'permanent');
    expect(proxy.methods.length - callsBefore).toBe(1);

    proxy.intercept(() => ({ status: 200, body: '<html>not json</html>' }));
    await expectChainError(viaProxy.getHeadBlockNumber(), 'permanent');
  });

  it('sees a block replaced after a revert', async () => {
    const snapshot = await devnet.snapshot();
    const sent = await devnet.transfer('USDT', newAddress(), '4');
    const original = await adapter.getBlockHash(sent.blockNumber);

    await devnet.revert(snapshot);
    expect(await adapter.getBlockHash(sent.blockNumber)).toBeNull();

    const replacement = await devnet.transfer('USDT', newAddress(), '4');
    expect(replacement.blockNumber).toBe(sent.blockNumber);
    expect(await adapter.getBlockHash(sent.blockNumber)).not.toBe(original);
    expect(await adapter.getBlockHash(sent.blockNumber)).toMatch(HASH);
  });

  it('derives the pay addresses of an xpub like libs/chains hd derivation', () => {
    expect(adapter.deriveAddress(ANVIL_XPUB, 1)).toBe(devnet.accounts.payer.address);
    expect(adapter.deriveAddress(ANVIL_XPUB, 17)).toBe(deriveEvmAddress(ANVIL_XPUB, 17));
    expect(() => adapter.deriveAddress(ANVIL_XPUB, -1)).toThrow(RangeError);
  });

  it('reports the status of a mined transfer, its confirmations growing with the chain', async () => {
    const sent = await devnet.transfer('USDT', newAddress(), '1.5');

    const status = await adapter.getTransactionStatus(sent.txHash);

    expect(status).toEqual({
      blockNumber: sent.blockNumber,
      blockHash: (await devnet.provider.getBlock(sent.blockNumber))?.hash,
      succeeded: true,
      confirmations: (await devnet.head()) - sent.blockNumber + 1,
    });
    expect(status?.blockHash).toMatch(HASH);
    await devnet.mine(3);
    const later = await adapter.getTransactionStatus(sent.txHash.toUpperCase().replace('0X', '0x'));
    expect(later?.confirmations).toBe((status?.confirmations ?? 0) + 3);
    expect(later?.blockHash).toBe(status?.blockHash);
  });

  it('reports a mined transaction that reverted as not succeeded', async () => {
    const token = new Contract(devnet.tokens.USDT.contract, TRANSFER_ABI, devnet.payer);
    const balance = await devnet.balanceOf('USDT', devnet.accounts.payer.address);
    // A gas limit of our own skips the estimate, which would refuse the call, so it gets mined.
    const response = (await token.getFunction('transfer')(newAddress(), balance + 1n, {
      gasLimit: 100_000,
    })) as ContractTransactionResponse;
    const receipt = await devnet.provider.waitForTransaction(response.hash);
    expect(receipt?.status).toBe(0);

    const status = await adapter.getTransactionStatus(response.hash);

    expect(status).toEqual({
      blockNumber: receipt?.blockNumber,
      blockHash: receipt?.blockHash.toLowerCase(),
      succeeded: false,
      confirmations: (await devnet.head()) - (receipt?.blockNumber ?? 0) + 1,
    });
  });

  it('returns null for a transaction the chain does not know, or no longer knows', async () => {
    expect(await adapter.getTransactionStatus(`0x${'ab'.repeat(32)}`)).toBeNull();

    const snapshot = await devnet.snapshot();
    const sent = await devnet.transfer('USDT', newAddress(), '2');
    expect(await adapter.getTransactionStatus(sent.txHash)).not.toBeNull();
    await devnet.revert(snapshot);

    expect(await adapter.getTransactionStatus(sent.txHash)).toBeNull();
    await expectChainError(adapter.getTransactionStatus('0x1234'), 'permanent');
  });

  it('normalizes transaction status failures like every other call', async () => {
    const sent = await devnet.transfer('USDT', newAddress(), '3');
    await proxy.down('refuse');
    const withDeadFirst = createAdapter([proxy.url, devnet.rpcUrl]);
    expect((await withDeadFirst.getTransactionStatus(sent.txHash))?.succeeded).toBe(true);

    await proxy.up();
    const viaProxy = createAdapter([proxy.url]);
    proxy.intercept(() => ({ status: 503, body: 'busy' }));
    await expectChainError(viaProxy.getTransactionStatus(sent.txHash), 'transient');
    proxy.intercept((request) =>
      request.method === 'eth_getTransactionReceipt'
        ? rpcResultReply(request, { transactionHash: 'not a receipt' })
        : undefined,
    );
    await expectChainError(viaProxy.getTransactionStatus(sent.txHash), 'permanent');
  });

  it('the devnet mines a batch of transfers larger than one block holds, every one', async () => {
    // A block holds about 580 token transfers at anvil's 30M gas; what did not fit used to wait
    // in the pool forever. A 150k limit shows it with a handful.
    const small = await startDevnet();
    try {
      await small.provider.send('evm_setBlockGasLimit', ['0x' + (150_000).toString(16)]);
      await small.provider.send('evm_mine', []);
      const transfers = Array.from({ length: 8 }, () => ({
        currency: 'USDT' as const,
        to: newAddress(),
        amount: '0.01',
      }));
      const sent = await small.transferMany(transfers);
      expect(sent).toHaveLength(8);
      expect(new Set(sent.map((transfer) => transfer.blockNumber)).size).toBeGreaterThan(1);
      for (const { to } of transfers) expect(await small.balanceOf('USDT', to)).toBe(10_000n);
    } finally {
      await small.stop();
    }
  });

  it('fails permanently once closed', async () => {
    const closing = createAdapter([devnet.rpcUrl]);
    await closing.close();
    await expectChainError(closing.getHeadBlockNumber(), 'permanent');
  });
});
