import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContractFactory, InterfaceAbi, Wallet } from 'ethers';
import { TronWeb } from 'tronweb';
import { EvmChainAdapter } from '@app/chains/adapters/evm/evm-chain-adapter';
import { TronChainAdapter } from '@app/chains/adapters/tron/tron-chain-adapter';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { ChainError } from '@app/chains/rpc/chain-error';
import { RetryOptions } from '@app/chains/rpc/retry';
import { DEVNET_ACCOUNTS, DEVNET_TOKEN_DECIMALS, Devnet, startDevnet } from '../support/devnet';
import { FakeTronNode } from '../support/fake-tron-node';
import { rpcErrorReply, rpcResultReply, RpcProxy } from '../support/rpc-proxy';

// getTokenDecimals of both adapters against real answers: anvil running the ERC-20 the devnet
// deploys, and the fake TRON node answering triggerconstantcontract as java-tron does.

const FAST_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2_000 };
const word = (value: number) => `0x${value.toString(16).padStart(64, '0')}`;

async function chainError(promise: Promise<unknown>, kind: 'transient' | 'permanent') {
  const error: unknown = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ChainError);
  expect((error as ChainError).kind).toBe(kind);
  return error as ChainError;
}

describe('EvmChainAdapter.getTokenDecimals against anvil', () => {
  let devnet: Devnet;
  let proxy: RpcProxy;
  const adapters: EvmChainAdapter[] = [];

  const adapterFor = (rpcUrls: string[]) => {
    const adapter = new EvmChainAdapter(devnet.networkConfig({ rpcUrls }), { retry: FAST_RETRY });
    adapters.push(adapter);
    return adapter;
  };

  beforeAll(async () => {
    devnet = await startDevnet();
    proxy = await RpcProxy.start(devnet.rpcUrl);
  });

  afterAll(async () => {
    await Promise.all(adapters.map((adapter) => adapter.close()));
    await proxy?.stop();
    await devnet?.stop();
  });

  afterEach(async () => {
    proxy.intercept(undefined);
    await proxy.up();
  });

  it("reads the devnet tokens' decimals() from their contracts", async () => {
    const adapter = adapterFor([devnet.rpcUrl]);
    expect(await adapter.getTokenDecimals(devnet.tokens.USDT.contract)).toBe(DEVNET_TOKEN_DECIMALS);
    // Lower case is an address too.
    expect(await adapter.getTokenDecimals(devnet.tokens.USDC.contract.toLowerCase())).toBe(6);
  });

  it('reads 18 from a token deployed with 18 decimals (as on BSC)', async () => {
    const artifact = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'contracts', 'build', 'TestToken.json'), 'utf8'),
    ) as { abi: InterfaceAbi; bytecode: string };
    const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
    const factory = new ContractFactory(artifact.abi, artifact.bytecode, deployer);
    const token = await factory.deploy('Binance-Peg USD (devnet)', 'USDT', 18);
    await token.waitForDeployment();
    expect(await adapterFor([devnet.rpcUrl]).getTokenDecimals(await token.getAddress())).toBe(18);
  });

  it('fails over to the next RPC URL', async () => {
    await proxy.down('refuse');
    const adapter = adapterFor([proxy.url, devnet.rpcUrl]);
    expect(await adapter.getTokenDecimals(devnet.tokens.USDT.contract)).toBe(6);
  });

  it('is a transient ChainError while no RPC answers', async () => {
    await proxy.down('refuse');
    const error = await chainError(
      adapterFor([proxy.url]).getTokenDecimals(devnet.tokens.USDT.contract),
      'transient',
    );
    expect(error.network).toBe('ETHEREUM');
    expect(error.message).toMatch(/eth_call decimals\(\)/);
  });

  it('is a permanent ChainError for an address without a contract', async () => {
    const error = await chainError(
      adapterFor([devnet.rpcUrl]).getTokenDecimals(DEVNET_ACCOUNTS.payer.address),
      'permanent',
    );
    expect(error.message).toMatch(/eth_call decimals\(\)/);
  });

  it('is a permanent ChainError when decimals() reverts', async () => {
    proxy.intercept((request) =>
      request.method === 'eth_call' ? rpcErrorReply(request, 3, 'execution reverted') : undefined,
    );
    await chainError(
      adapterFor([proxy.url]).getTokenDecimals(devnet.tokens.USDT.contract),
      'permanent',
    );
  });

  it('refuses an answer that is no uint8 instead of reading its low byte', async () => {
    // 262 = 0x106: masked to 8 bits it would read as 6, the configured value.
    proxy.intercept((request) =>
      request.method === 'eth_call' ? rpcResultReply(request, word(262)) : undefined,
    );
    const error = await chainError(
      adapterFor([proxy.url]).getTokenDecimals(devnet.tokens.USDT.contract),
      'permanent',
    );
    expect(error.message).toMatch(/returned 262, not a uint8/);
  });

  it('refuses a contract that is no EVM address without asking the node', async () => {
    const adapter = adapterFor([proxy.url]);
    const before = proxy.methods.length;
    await chainError(adapter.getTokenDecimals('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'), 'permanent');
    expect(proxy.methods.length).toBe(before);
  });
});

describe('TronChainAdapter.getTokenDecimals against the fake TRON node', () => {
  const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
  let node: FakeTronNode;
  let adapter: TronChainAdapter;

  beforeEach(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    adapter = new TronChainAdapter(
      { ...TESTNET_NETWORKS.TRON, rpcUrls: [url], publicRpcUrl: url },
      { retry: FAST_RETRY },
    );
  });

  afterEach(async () => {
    await adapter.close();
    await node.stop();
  });

  const constantCalls = () =>
    node.requests.filter((request) => request.path === '/wallet/triggerconstantcontract');

  it('reads decimals() through triggerconstantcontract', async () => {
    expect(await adapter.getTokenDecimals(USDT)).toBe(6);
    node.setTokenDecimals(USDT, 18);
    expect(await adapter.getTokenDecimals(USDT)).toBe(18);
    expect(constantCalls().map((request) => request.body)).toEqual([
      expect.objectContaining({
        contract_address: TronWeb.address.toHex(USDT).toLowerCase(),
        function_selector: 'decimals()',
        parameter: '',
        visible: false,
      }),
      expect.anything(),
    ]);
  });

  it("is a permanent ChainError for an address without a contract, with the node's reason", async () => {
    node.setTokenDecimals(USDT, null);
    const error = await chainError(adapter.getTokenDecimals(USDT), 'permanent');
    expect(error.network).toBe('TRON');
    expect(error.message).toMatch(/CONTRACT_VALIDATE_ERROR Smart contract is not exist\./);
    // Permanent: one request, no retries.
    expect(constantCalls()).toHaveLength(1);
  });

  it('refuses an answer that is no uint8', async () => {
    node.setTokenDecimals(USDT, 262);
    const error = await chainError(adapter.getTokenDecimals(USDT), 'permanent');
    expect(error.message).toMatch(/returned 262, not a uint8/);
  });

  it('is a transient ChainError while the node is down', async () => {
    await node.down('unavailable');
    await chainError(adapter.getTokenDecimals(USDT), 'transient');
    await node.up();
    expect(await adapter.getTokenDecimals(USDT)).toBe(6);
  });

  it('refuses a contract that is no TRON address without asking the node', async () => {
    await chainError(
      adapter.getTokenDecimals('0x55d398326f99059fF775485246999027B3197955'),
      'permanent',
    );
    expect(constantCalls()).toHaveLength(0);
  });
});
