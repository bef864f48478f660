import { createServer } from 'node:net';
import { Interface, parseUnits, Transaction, Wallet } from 'ethers';
import { ChainError } from '@app/chains/rpc/chain-error';
import { RetryOptions } from '@app/chains/rpc/retry';
import { EthersPayoutTransport } from '@app/chains/payouts/evm-payout-transport';
import { HotWalletKey } from '@app/chains/payouts/hot-wallet-key';
import { EvmFees, SignedTransfer } from '@app/chains/payouts/payout-transport';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../support/devnet';
import { setTokenBalance } from '../support/payout-chain';
import { RpcProxy } from '../support/rpc-proxy';

// A few milliseconds between attempts: the suite tests failure paths, not patience.
const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2_000 };
const ERC20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
const { hotWallet, payer } = DEVNET_ACCOUNTS;
const HOT_KEY = new HotWalletKey('ETHEREUM', hotWallet.address, hotWallet.privateKey);
const AMOUNT = parseUnits('1.5', 6);

/** +12.5 %, rounded up: the smallest bump every client takes as a replacement. */
const bumped = (fees: EvmFees): EvmFees => ({
  maxFeePerGas: (fees.maxFeePerGas * 1125n + 999n) / 1000n,
  maxPriorityFeePerGas: (fees.maxPriorityFeePerGas * 1125n + 999n) / 1000n,
});

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function thrown(action: () => unknown): Promise<Error> {
  try {
    await action();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected an error');
}

describe('EthersPayoutTransport against anvil', () => {
  let devnet: Devnet;
  let transport: EthersPayoutTransport;
  const transports: EthersPayoutTransport[] = [];
  let usdt: string;

  function createTransport(rpcUrls: string[]): EthersPayoutTransport {
    const created = new EthersPayoutTransport(devnet.networkConfig({ rpcUrls }), {
      retry: FAST_RETRY,
    });
    transports.push(created);
    return created;
  }

  const order = (to: string, amountBaseUnits = AMOUNT) => ({
    tokenContract: usdt,
    to,
    amountBaseUnits,
  });
  const newAddress = () => Wallet.createRandom().address;
  const automine = (enabled: boolean) => devnet.provider.send('evm_setAutomine', [enabled]);
  const mineBlock = () => devnet.provider.send('evm_mine', []);

  /** A transfer from the hot wallet at its next nonce (or `nonce`), with today's fees. */
  async function signTransfer(
    to: string,
    options: { nonce?: number; fees?: EvmFees; amount?: bigint } = {},
  ): Promise<SignedTransfer> {
    const transfer = order(to, options.amount);
    const [nonce, fees, gasLimit] = await Promise.all([
      options.nonce ?? transport.transactionCount(hotWallet.address, 'pending'),
      options.fees ?? transport.suggestFees(),
      transport.estimateTransferGas(hotWallet.address, transfer),
    ]);
    return transport.sign(HOT_KEY, transfer, { nonce, fees, gasLimit });
  }

  beforeAll(async () => {
    devnet = await startDevnet();
    usdt = devnet.tokens.USDT.contract;
    transport = createTransport([devnet.rpcUrl]);
  });

  afterAll(async () => {
    await Promise.all(transports.map((created) => created.close()));
    await devnet?.stop();
  });

  afterEach(() => automine(true));

  it('signs locally a type 2 transfer() of the token, identified by the hash of its bytes', async () => {
    const to = newAddress();
    const fees = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };

    const signed = transport.sign(HOT_KEY, order(to), { nonce: 7, fees, gasLimit: 80_000n });

    const decoded = Transaction.from(signed.rawTransaction);
    expect(decoded).toMatchObject({
      type: 2,
      chainId: BigInt(devnet.chainId),
      nonce: 7,
      to: usdt,
      value: 0n,
      gasLimit: 80_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      from: hotWallet.address,
    });
    expect(ERC20.decodeFunctionData('transfer', decoded.data).toArray()).toEqual([to, AMOUNT]);
    expect(signed).toEqual({
      txHash: decoded.hash?.toLowerCase(),
      rawTransaction: signed.rawTransaction,
      nonce: 7,
      fees,
      gasLimit: 80_000n,
      expiresAt: null,
    });
    expect(signed.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('broadcasts, sees the transaction pending then mined, and the recipient gets exactly the amount', async () => {
    const to = newAddress();
    await automine(false);
    const signed = await signTransfer(to);

    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'pending' });
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'already_known' });

    await mineBlock();
    const head = await devnet.head();
    // The fee as the node's own receipt states it, to the wei.
    const receipt = await devnet.provider.getTransactionReceipt(signed.txHash);
    expect(await transport.lookup(signed.txHash)).toEqual({
      state: 'mined',
      status: {
        blockNumber: head,
        blockHash: (await devnet.provider.getBlock(head))?.hash,
        succeeded: true,
        confirmations: 1,
      },
      feeBaseUnits: receipt!.gasUsed * receipt!.gasPrice,
    });
    expect(await devnet.balanceOf('USDT', to)).toBe(AMOUNT);
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'nonce_too_low' });
  });

  it('gives a transfer gas enough for a recipient whose balance was emptied after the estimate', async () => {
    // An exchange deposit address: it holds tokens when the payout is estimated, and is swept
    // before the transfer is mined. Writing a balance from zero costs about 17k gas more.
    const to = newAddress();
    await setTokenBalance(devnet, 'USDT', to, AMOUNT);
    const signed = await signTransfer(to);
    await setTokenBalance(devnet, 'USDT', to, 0n);

    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    const receipt = await devnet.provider.waitForTransaction(signed.txHash);
    expect(receipt?.status).toBe(1);
    expect(await devnet.balanceOf('USDT', to)).toBe(AMOUNT);
  });

  it('takes a replacement with +12.5 % on both fees and refuses a smaller bump; one transfer happens', async () => {
    const to = newAddress();
    await automine(false);
    const first = await signTransfer(to);
    expect(await transport.broadcast(first.rawTransaction)).toEqual({ kind: 'accepted' });
    const fees = first.fees as EvmFees;
    const nonce = first.nonce as number;

    // Only the tip raised: clients want both fields higher.
    const tipOnly = await signTransfer(to, {
      nonce,
      fees: { ...fees, maxPriorityFeePerGas: bumped(fees).maxPriorityFeePerGas },
    });
    expect(await transport.broadcast(tipOnly.rawTransaction)).toEqual({ kind: 'underpriced' });
    const replacement = await signTransfer(to, { nonce, fees: bumped(fees) });
    expect(replacement.txHash).not.toBe(first.txHash);
    expect(await transport.broadcast(replacement.rawTransaction)).toEqual({ kind: 'accepted' });

    await mineBlock();
    const lookups = await Promise.all(
      [first, tipOnly, replacement].map((signed) => transport.lookup(signed.txHash)),
    );
    expect(lookups.filter((lookup) => lookup.state === 'mined')).toHaveLength(1);
    expect(lookups.filter((lookup) => lookup.state === 'unknown')).toHaveLength(2);
    expect(await devnet.balanceOf('USDT', to)).toBe(AMOUNT);
    expect(await transport.transactionCount(hotWallet.address, 'latest')).toBe(nonce + 1);
  });

  it('forgets a transaction dropped from the pool; the stored bytes sent again get mined', async () => {
    const to = newAddress();
    await automine(false);
    const signed = await signTransfer(to);
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });

    await devnet.provider.send('anvil_dropTransaction', [signed.txHash]);
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'unknown' });

    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    await mineBlock();
    expect(await transport.lookup(signed.txHash)).toMatchObject({
      state: 'mined',
      status: { succeeded: true, confirmations: 1 },
    });
    expect(await devnet.balanceOf('USDT', to)).toBe(AMOUNT);
  });

  it('reports a transaction the wallet cannot pay gas for as rejected, in the node’s words', async () => {
    const poor = Wallet.createRandom();
    await devnet.transfer('USDT', poor.address, '5');
    const key = new HotWalletKey('ETHEREUM', poor.address, poor.privateKey);
    const signed = transport.sign(key, order(newAddress()), {
      nonce: 0,
      fees: await transport.suggestFees(),
      gasLimit: 100_000n,
    });

    const result = await transport.broadcast(signed.rawTransaction);

    expect(result).toEqual({
      kind: 'rejected',
      reason: expect.stringMatching(/insufficient funds/i),
    });
    expect(JSON.stringify(result)).not.toContain(signed.rawTransaction.slice(2, 66));
    expect(await transport.lookup(signed.txHash)).toEqual({ state: 'unknown' });
  });

  it('sends a definite answer once, and retries only when no answer came', async () => {
    const proxy = await RpcProxy.start(devnet.rpcUrl);
    try {
      const viaProxy = createTransport([proxy.url]);
      const mined = await signTransfer(newAddress());
      expect(await transport.broadcast(mined.rawTransaction)).toEqual({ kind: 'accepted' });
      const sends = () => proxy.methods.filter((method) => method === 'eth_sendRawTransaction');

      expect(await viaProxy.broadcast(mined.rawTransaction)).toEqual({ kind: 'nonce_too_low' });
      expect(sends()).toHaveLength(1);

      proxy.intercept((request) =>
        request.method === 'eth_sendRawTransaction' ? { status: 503, body: 'busy' } : undefined,
      );
      const error = await thrown(() => viaProxy.broadcast(mined.rawTransaction));
      expect(error).toBeInstanceOf(ChainError);
      expect((error as ChainError).transient).toBe(true);
      expect(sends()).toHaveLength(1 + FAST_RETRY.attempts);
    } finally {
      await proxy.stop();
    }
  });

  it('throws a transient ChainError, naming neither URL nor bytes, when no RPC answers', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const unreachable = createTransport([url]);
    const signed = await signTransfer(newAddress());

    const error = await thrown(() => unreachable.broadcast(signed.rawTransaction));

    expect(error).toBeInstanceOf(ChainError);
    expect(error).toMatchObject({ kind: 'transient', network: 'ETHEREUM' });
    expect(error.message).not.toContain(url);
    expect(error.message).not.toContain(signed.rawTransaction.slice(2, 66));
    const lookupError = await thrown(() => unreachable.lookup(signed.txHash));
    expect(lookupError).toMatchObject({ kind: 'transient' });
  });

  it('reads balances, nonces, fees and gas', async () => {
    const balances = await transport.balances(hotWallet.address, usdt);
    expect(balances).toEqual({
      token: await devnet.balanceOf('USDT', hotWallet.address),
      native: await devnet.provider.getBalance(hotWallet.address),
    });
    expect(await transport.balances(newAddress(), usdt)).toEqual({ token: 0n, native: 0n });

    const latest = await transport.transactionCount(hotWallet.address, 'latest');
    expect(latest).toBe(await devnet.provider.getTransactionCount(hotWallet.address));
    expect(await transport.transactionCount(hotWallet.address, 0)).toBe(0);
    await automine(false);
    await transport.broadcast((await signTransfer(newAddress())).rawTransaction);
    expect(await transport.transactionCount(hotWallet.address, 'pending')).toBe(latest + 1);
    expect(await transport.transactionCount(hotWallet.address, 'latest')).toBe(latest);
    await mineBlock();

    const baseFee = (await devnet.provider.getBlock('latest'))?.baseFeePerGas ?? 0n;
    const tip = BigInt(await devnet.provider.send('eth_maxPriorityFeePerGas', []));
    expect(await transport.suggestFees()).toEqual({
      maxFeePerGas: 2n * baseFee + tip,
      maxPriorityFeePerGas: tip,
    });

    const transfer = order(newAddress());
    // Against the latest block, like the transport: see estimateTransferGas.
    const data = ERC20.encodeFunctionData('transfer', [transfer.to, transfer.amountBaseUnits]);
    const estimate = BigInt(
      await devnet.provider.send('eth_estimateGas', [
        { from: hotWallet.address, to: usdt, data },
        'latest',
      ]),
    );
    // A quarter more, and at least 25k: the cost of a recipient's balance written from zero.
    const quarter = (estimate * 25n + 99n) / 100n;
    expect(await transport.estimateTransferGas(hotWallet.address, transfer)).toBe(
      estimate + (quarter > 25_000n ? quarter : 25_000n),
    );
  });

  it('refuses a key of another address, and never shows a private key in an error', async () => {
    const fees = await transport.suggestFees();
    const params = { nonce: 0, fees, gasLimit: 100_000n };
    const misfiled = new HotWalletKey('ETHEREUM', payer.address, hotWallet.privateKey);
    const garbage = new HotWalletKey('ETHEREUM', hotWallet.address, '0x1234-not-a-key');

    const errors = [
      await thrown(() => transport.sign(misfiled, order(newAddress()), params)),
      await thrown(() => transport.sign(garbage, order(newAddress()), params)),
      await thrown(() => transport.broadcast('0xdeadbeef')),
    ];

    expect(errors[0].message).toContain('does not belong to');
    expect(errors[1].message).toContain('not a valid private key');
    expect(errors[2]).toMatchObject({ kind: 'permanent' });
    for (const error of errors) {
      const shown = `${error.message} ${error.stack} ${JSON.stringify(error)}`;
      expect(shown).not.toContain(hotWallet.privateKey.slice(2));
      expect(shown).not.toContain('1234-not-a-key');
      expect(error.cause).toBeUndefined();
    }
  });
});
