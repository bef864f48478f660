import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Contract,
  ContractFactory,
  ContractTransactionResponse,
  InterfaceAbi,
  JsonRpcProvider,
  Network,
  NonceManager,
  Overrides,
  parseUnits,
  toQuantity,
  Wallet,
} from 'ethers';
import type {
  Currency,
  NetworkConfig,
  NetworkName,
  TokenConfig,
} from '@app/chains/networks/network.types';
import {
  MULTICALL3_ARTIFACT,
  SWEEP_DELEGATE_ARTIFACT,
} from '@app/chains/contracts/contract-artifacts';
import { MULTICALL3_ADDRESS } from '@app/chains/contracts/multicall3';

/*
 * A real local EVM chain for tests and development: anvil (from @foundry-rs/anvil) on the Prague
 * hard fork (EIP-7702), Multicall3 at its canonical address, and the committed TestToken deployed
 * as USDT and USDC, 6 decimals like on Ethereum. With `chainId` and
 * `tokenDecimals` (or startDevnetAs) it stands in for any EVM network of the registry, e.g. BSC:
 * chain id 56, tokens of 18 decimals (the TestToken constructor takes the decimals).
 */

export const DEVNET_CHAIN_ID = 31337;
export const DEVNET_DISPLAY_NAME = 'Local devnet (anvil)';
export const DEVNET_TOKEN_DECIMALS = 6;
const TRANSFER_GAS_LIMIT = 100_000n;

/** Minted to the payer and the hot wallet at start, per token. */
export const DEVNET_TOKEN_FUNDING = '1000000';

export interface DevnetAccount {
  address: string;
  privateKey: string;
}

// anvil's default accounts #0-#2, from the public "test test ... junk" mnemonic: everyone knows
// these keys, so they must never hold anything real.
export const DEVNET_ACCOUNTS = {
  deployer: {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  payer: {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  hotWallet: {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
} as const satisfies Record<string, DevnetAccount>;

const TOKEN_NAMES: Record<Currency, string> = {
  USDT: 'Tether USD (devnet)',
  USDC: 'USD Coin (devnet)',
};
const ARTIFACT_FILE = join(__dirname, '..', '..', 'contracts', 'build', 'TestToken.json');
const NO_RETURN_TOKEN_ARTIFACT_FILE = join(
  __dirname,
  '..',
  '..',
  'contracts',
  'build',
  'NoReturnToken.json',
);
// Prague brings EIP-7702 (type-4 transactions), which every supported network has activated.
const HARDFORK = 'prague';
const STARTUP_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
const LISTENING_PATTERN = /Listening on [^\s]+:(\d+)/;

export interface DevnetOptions {
  /** Seconds between blocks, like a real chain; without it every transaction mines its block. */
  blockTime?: number;
  /** 0 (the default) lets the system pick a free port. */
  port?: number;
  /** Where anvil's own log goes; by default it is discarded. */
  logFile?: string;
  /** The chain id anvil reports and transactions are signed for; DEVNET_CHAIN_ID by default. */
  chainId?: number;
  /** Decimals of the deployed tokens, for both or per currency; DEVNET_TOKEN_DECIMALS by default. */
  tokenDecimals?: number | Partial<Record<Currency, number>>;
}

export type DevnetTokens = Record<Currency, TokenConfig>;

export interface DevnetTransfer {
  currency: Currency;
  to: string;
  /** Decimal string in whole tokens, e.g. "12.5". */
  amount: string;
}

export interface SentTransfer {
  txHash: string;
  blockNumber: number;
}

export interface NetworksFile {
  networks: { ETHEREUM: Omit<NetworkConfig, 'name' | 'chainFamily'> };
}

/** One network's entry of a NETWORKS_FILE; a currency set to null removes the registry's token. */
export interface NetworksFileEntry {
  displayName: string;
  chainId: number;
  rpcUrls: string[];
  wsUrl?: string;
  publicRpcUrl: string;
  confirmations: number;
  /** anvil charges no L1 data fee: false, or BASE and OPTIMISM would keep their default true. */
  opStack?: boolean;
  tokens: Partial<Record<Currency, TokenConfig | null>>;
}

/** A network of the registry with the entry that maps it onto a chain of the tests. */
export interface NamedNetworksFileEntry {
  name: NetworkName;
  entry: NetworksFileEntry;
}

/** Starts anvil, deploys USDT and USDC and funds the payer and the hot wallet. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const chainId = options.chainId ?? DEVNET_CHAIN_ID;
  const decimals = tokenDecimalsOf(options);
  const { child, port } = await spawnAnvil(options, chainId);
  const rpcUrl = `http://127.0.0.1:${port}`;
  // A bare network: Network.from(137) would bring ethers' Polygon plugin, which asks Polygon's
  // public gas station (not this node) for fee data.
  const network = new Network(`devnet-${chainId}`, chainId);
  const provider = new JsonRpcProvider(rpcUrl, network, {
    staticNetwork: network,
    // ethers' 250 ms cache would return a stale head and reuse nonces right after a block.
    cacheTimeout: -1,
    pollingInterval: 100,
  });
  try {
    await installMulticall3(provider);
    const tokens = await deployTokens(provider, decimals);
    return new Devnet(child, provider, rpcUrl, tokens, options.blockTime, chainId);
  } catch (error) {
    provider.destroy();
    await stopProcess(child);
    throw error;
  }
}

/**
 * A devnet standing in for `network` of the registry: its chain id, and each token with the
 * decimals the registry gives it (a currency the network lacks is still deployed, with 6).
 */
export function startDevnetAs(
  network: NetworkConfig,
  options: DevnetOptions = {},
): Promise<Devnet> {
  if (network.chainFamily !== 'EVM') throw new Error(`${network.name} is not an EVM network.`);
  const tokenDecimals = Object.fromEntries(
    Object.entries(network.tokens).map(([currency, token]) => [currency, token.decimals]),
  );
  return startDevnet({ chainId: network.chainId, tokenDecimals, ...options });
}

export class Devnet {
  readonly accounts = DEVNET_ACCOUNTS;
  /** The payer's wallet; the NonceManager hands out nonces locally, so sends never collide. */
  readonly payer: NonceManager;
  private readonly killOnExit = () => this.child.kill('SIGKILL');

  constructor(
    private readonly child: ChildProcess,
    readonly provider: JsonRpcProvider,
    readonly rpcUrl: string,
    readonly tokens: DevnetTokens,
    private readonly blockTime: number | undefined,
    readonly chainId: number = DEVNET_CHAIN_ID,
  ) {
    this.payer = new NonceManager(new Wallet(DEVNET_ACCOUNTS.payer.privateKey, provider));
    // A test run that dies without stop() must not leave anvil running.
    process.once('exit', this.killOnExit);
  }

  /** Sends `amount` of the token from the payer and waits until it is mined. */
  async transfer(currency: Currency, to: string, amount: string): Promise<SentTransfer> {
    const response = await this.sendTransfer({ currency, to, amount });
    return this.receiptOf(response);
  }

  /**
   * Sends all transfers from the payer and mines them together: in one block, or in as many as
   * the block gas limit needs (about 580 token transfers fit in anvil's 30M).
   */
  async transferMany(transfers: DevnetTransfer[]): Promise<SentTransfer[]> {
    await this.pauseMining();
    try {
      const responses: ContractTransactionResponse[] = [];
      const { maxFeePerGas, maxPriorityFeePerGas } = await this.provider.getFeeData();
      // A token transfer uses under 60k gas; the fees hold while no block is mined.
      const overrides = { gasLimit: TRANSFER_GAS_LIMIT, maxFeePerGas, maxPriorityFeePerGas };
      // One after the other: the NonceManager must hand out the nonces in sending order.
      for (const transfer of transfers)
        responses.push(await this.sendTransfer(transfer, overrides));
      const payer = DEVNET_ACCOUNTS.payer.address;
      const last = responses.at(-1)?.nonce;
      // Mined until the payer's last nonce is: what did not fit waits in the pool otherwise, and
      // an automining node mines it only when some later transaction arrives.
      do await this.provider.send('evm_mine', []);
      while (
        last !== undefined &&
        (await this.provider.getTransactionCount(payer, 'latest')) <= last
      );
      return await Promise.all(responses.map((response) => this.receiptOf(response)));
    } finally {
      await this.resumeMining();
    }
  }

  async balanceOf(currency: Currency, address: string): Promise<bigint> {
    const balance: unknown = await this.token(currency).getFunction('balanceOf')(address);
    return balance as bigint;
  }

  async mine(blocks = 1): Promise<void> {
    await this.provider.send('anvil_mine', [toQuantity(blocks)]);
  }

  async head(): Promise<number> {
    return this.provider.getBlockNumber();
  }

  /** The chain state now; `revert(id)` returns to it and drops every later block. */
  async snapshot(): Promise<string> {
    return (await this.provider.send('evm_snapshot', [])) as string;
  }

  async revert(id: string): Promise<void> {
    const reverted = (await this.provider.send('evm_revert', [id])) as boolean;
    if (!reverted) throw new Error(`anvil has no snapshot ${id}.`);
    // The payer's later transactions are gone, so are the nonces they used.
    this.payer.reset();
  }

  /** ETHEREUM pointing at this devnet, confirmations 1. */
  networkConfig(overrides: Partial<NetworkConfig> = {}): NetworkConfig {
    return {
      name: 'ETHEREUM',
      chainFamily: 'EVM',
      ...devnetNetworksFile(this.rpcUrl, this.tokens, { chainId: this.chainId }).networks.ETHEREUM,
      ...overrides,
    };
  }

  /** The content of a NETWORKS_FILE that maps ETHEREUM onto this devnet. */
  networksFileJson(overrides: Partial<NetworksFile['networks']['ETHEREUM']> = {}): string {
    const file = devnetNetworksFile(this.rpcUrl, this.tokens, {
      chainId: this.chainId,
      ...overrides,
    });
    return JSON.stringify(file, null, 2);
  }

  /**
   * `name` (any network of the registry) pointing at this devnet: its chain id, both tokens,
   * confirmations 1. Combine entries of several devnets with networksFileJsonOf.
   */
  networkEntry(
    name: NetworkName,
    overrides: Partial<NetworksFileEntry> = {},
  ): NamedNetworksFileEntry {
    return {
      name,
      entry: {
        displayName: `${DEVNET_DISPLAY_NAME} as ${name}`,
        chainId: this.chainId,
        rpcUrls: [this.rpcUrl],
        wsUrl: webSocketUrlOf(this.rpcUrl),
        publicRpcUrl: this.rpcUrl,
        confirmations: 1,
        opStack: false,
        tokens: { USDT: { ...this.tokens.USDT }, USDC: { ...this.tokens.USDC } },
        ...overrides,
      },
    };
  }

  async stop(): Promise<void> {
    process.off('exit', this.killOnExit);
    this.provider.destroy();
    await stopProcess(this.child);
  }

  private token(currency: Currency): Contract {
    return new Contract(this.tokens[currency].contract, readArtifact().abi, this.payer);
  }

  /** `overrides` spare the round trips of an estimate and a fee lookup in a long series. */
  private async sendTransfer(
    transfer: DevnetTransfer,
    overrides: Overrides = {},
  ): Promise<ContractTransactionResponse> {
    const baseUnits = parseUnits(transfer.amount, this.tokens[transfer.currency].decimals);
    const send = this.token(transfer.currency).getFunction('transfer');
    return (await send(transfer.to, baseUnits, overrides)) as ContractTransactionResponse;
  }

  private async receiptOf(response: ContractTransactionResponse): Promise<SentTransfer> {
    const receipt = await response.wait();
    if (!receipt) throw new Error(`No receipt for ${response.hash}.`);
    return { txHash: receipt.hash.toLowerCase(), blockNumber: receipt.blockNumber };
  }

  private async pauseMining(): Promise<void> {
    if (this.blockTime === undefined) await this.provider.send('evm_setAutomine', [false]);
    else await this.provider.send('evm_setIntervalMining', [0]);
  }

  private async resumeMining(): Promise<void> {
    if (this.blockTime === undefined) await this.provider.send('evm_setAutomine', [true]);
    else await this.provider.send('evm_setIntervalMining', [this.blockTime]);
  }
}

/** A NETWORKS_FILE that maps ETHEREUM onto a devnet (the registry accepts it in any APP_ENV). */
export function devnetNetworksFile(
  rpcUrl: string,
  tokens: DevnetTokens,
  overrides: Partial<NetworksFile['networks']['ETHEREUM']> = {},
): NetworksFile {
  return {
    networks: {
      ETHEREUM: {
        displayName: DEVNET_DISPLAY_NAME,
        chainId: DEVNET_CHAIN_ID,
        rpcUrls: [rpcUrl],
        wsUrl: webSocketUrlOf(rpcUrl),
        publicRpcUrl: rpcUrl,
        confirmations: 1,
        tokens: { USDT: { ...tokens.USDT }, USDC: { ...tokens.USDC } },
        ...overrides,
      },
    },
  };
}

/** anvil serves WebSocket JSON-RPC (and so `newHeads` subscriptions) on its HTTP port. */
export function webSocketUrlOf(rpcUrl: string): string {
  return rpcUrl.replace(/^http/, 'ws');
}

/** The content of a NETWORKS_FILE holding every entry given; a network may appear only once. */
export function networksFileJsonOf(entries: NamedNetworksFileEntry[]): string {
  const networks: Partial<Record<NetworkName, NetworksFileEntry>> = {};
  for (const { name, entry } of entries) {
    if (networks[name]) throw new Error(`${name} is in the networks file twice.`);
    networks[name] = entry;
  }
  return JSON.stringify({ networks }, null, 2);
}

export interface SweepDelegateSettings {
  sweeper: string;
  hotWallet: string;
  treasury: string;
  /** Up to four whitelisted tokens. */
  tokens: string[];
}

/** Anything with a provider signing for the node's chain id: a Devnet or a ChainIdDevnet. */
export interface DevnetProvider {
  provider: JsonRpcProvider;
}

/** Deploys contracts/SweepDelegate.sol from anvil's account #0; resolves to its address. */
export async function deploySweepDelegate(
  devnet: DevnetProvider,
  settings: SweepDelegateSettings,
): Promise<string> {
  const { abi, bytecode } = SWEEP_DELEGATE_ARTIFACT;
  const { sweeper, hotWallet, treasury, tokens } = settings;
  return deployFromDeployer(devnet, abi, bytecode, [sweeper, hotWallet, treasury, tokens]);
}

/**
 * Deploys a USDT-like token (6 decimals, no return value from transfer, a blacklist) from
 * anvil's account #0, which alone mints (`mint(to, amount)`) and blacklists
 * (`addBlackList(address)`); resolves to its address. noReturnTokenAbi() is its ABI.
 */
export async function deployNoReturnToken(
  devnet: DevnetProvider,
  { name = 'Tether USD (no return)', symbol = 'USDT' }: { name?: string; symbol?: string } = {},
): Promise<string> {
  const { abi, bytecode } = readNoReturnTokenArtifact();
  return deployFromDeployer(devnet, abi, bytecode, [name, symbol]);
}

export function noReturnTokenAbi(): InterfaceAbi {
  return readNoReturnTokenArtifact().abi;
}

async function deployFromDeployer(
  devnet: DevnetProvider,
  abi: InterfaceAbi,
  bytecode: string,
  args: unknown[],
): Promise<string> {
  // A fresh wallet asks the node for the pending nonce, so it follows any earlier deployment.
  const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
  const contract = await new ContractFactory(abi, bytecode, deployer).deploy(...args);
  await contract.waitForDeployment();
  return contract.getAddress();
}

/**
 * Puts contracts/Multicall3.sol's runtime code at the canonical Multicall3 address, so code that
 * batches balance reads through it runs the same on the devnet as on the real networks.
 */
async function installMulticall3(provider: JsonRpcProvider): Promise<void> {
  await provider.send('anvil_setCode', [MULTICALL3_ADDRESS, MULTICALL3_ARTIFACT.deployedBytecode]);
}

interface TokenArtifact {
  abi: InterfaceAbi;
  bytecode: string;
}

let artifact: TokenArtifact | undefined;

function readArtifact(): TokenArtifact {
  artifact ??= JSON.parse(readFileSync(ARTIFACT_FILE, 'utf8')) as TokenArtifact;
  return artifact;
}

let noReturnTokenArtifact: TokenArtifact | undefined;

function readNoReturnTokenArtifact(): TokenArtifact {
  noReturnTokenArtifact ??= JSON.parse(
    readFileSync(NO_RETURN_TOKEN_ARTIFACT_FILE, 'utf8'),
  ) as TokenArtifact;
  return noReturnTokenArtifact;
}

/**
 * Deploys USDT then USDC from anvil's account #0, so both land at the same addresses on every
 * fresh devnet, then mints to the payer and the hot wallet.
 */
async function deployTokens(
  provider: JsonRpcProvider,
  decimals: Record<Currency, number>,
): Promise<DevnetTokens> {
  const deployer = new NonceManager(new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, provider));
  const { abi, bytecode } = readArtifact();
  const factory = new ContractFactory(abi, bytecode, deployer);
  const currencies: Currency[] = ['USDT', 'USDC'];
  // Sent together and awaited together: with interval mining each wait costs a block.
  const contracts: Contract[] = [];
  for (const currency of currencies) {
    const contract = await factory.deploy(TOKEN_NAMES[currency], currency, decimals[currency]);
    contracts.push(contract as Contract);
  }
  await Promise.all(contracts.map((contract) => contract.waitForDeployment()));

  // Only once the code exists: gas estimation against a missing contract would come out too low.
  const mints: ContractTransactionResponse[] = [];
  for (const [index, contract] of contracts.entries()) {
    const amount = parseUnits(DEVNET_TOKEN_FUNDING, decimals[currencies[index]]);
    for (const holder of [DEVNET_ACCOUNTS.payer, DEVNET_ACCOUNTS.hotWallet]) {
      const mint = contract.getFunction('mint');
      mints.push((await mint(holder.address, amount)) as ContractTransactionResponse);
    }
  }
  await Promise.all(mints.map((mint) => mint.wait()));

  const addresses = await Promise.all(contracts.map((contract) => contract.getAddress()));
  return {
    USDT: { contract: addresses[0], decimals: decimals.USDT },
    USDC: { contract: addresses[1], decimals: decimals.USDC },
  };
}

function tokenDecimalsOf(options: DevnetOptions): Record<Currency, number> {
  const given = options.tokenDecimals ?? DEVNET_TOKEN_DECIMALS;
  const decimals =
    typeof given === 'number'
      ? { USDT: given, USDC: given }
      : { USDT: given.USDT ?? DEVNET_TOKEN_DECIMALS, USDC: given.USDC ?? DEVNET_TOKEN_DECIMALS };
  for (const [currency, value] of Object.entries(decimals)) {
    // TestToken stores them as a uint8.
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw new Error(`${currency} decimals must be a whole number from 0 to 255, got ${value}.`);
    }
  }
  return decimals;
}

/** The anvil binary of the installed platform package (what `npx anvil` runs). */
function anvilBinary(): string {
  if (process.env.ANVIL_BINARY) return process.env.ANVIL_BINARY;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const name = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${name}`);
}

async function spawnAnvil(
  options: DevnetOptions,
  chainId: number,
): Promise<{ child: ChildProcess; port: number }> {
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0)];
  args.push('--chain-id', String(chainId), '--hardfork', HARDFORK);
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await waitUntilListening(child);
    // Keep reading: anvil logs every request, and a full pipe would block it.
    if (options.logFile) child.stdout?.pipe(createWriteStream(options.logFile, { flags: 'a' }));
    else child.stdout?.resume();
    child.stderr?.resume();
    return { child, port };
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

function waitUntilListening(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const finish = (error: Error | undefined, port?: number) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', finish);
      if (error) reject(error);
      else resolve(port as number);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const port = LISTENING_PATTERN.exec(output)?.[1];
      if (port) finish(undefined, Number(port));
    };
    const onExit = (code: number | null) => {
      finish(new Error(`anvil exited with code ${code} before listening:\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(
      () => finish(new Error(`anvil did not start within ${STARTUP_TIMEOUT_MS} ms.`)),
      STARTUP_TIMEOUT_MS,
    );
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', onExit);
    child.on('error', finish);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
