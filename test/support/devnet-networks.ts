import {
  Contract,
  JsonRpcProvider,
  Network,
  NonceManager,
  parseUnits,
  Transaction,
  TransactionResponse,
  Wallet,
} from 'ethers';
import type { Currency, NetworkName } from '@app/chains/networks/network.types';
import {
  DEVNET_ACCOUNTS,
  DEVNET_DISPLAY_NAME,
  Devnet,
  DevnetOptions,
  DevnetTokens,
  SentTransfer,
  startDevnet,
  webSocketUrlOf,
} from './devnet';

/*
 * Several EVM networks at once for tests, each on its own anvil: the same pay address exists on
 * every one of them, as it does on Ethereum and BSC. Additive to devnet.ts, which knows only one
 * network (ETHEREUM, chain id 31337).
 */

const TRANSFER_ABI = ['function transfer(address to, uint256 amount) returns (bool)'];

/**
 * A devnet that reports `chainId` (anvil_setChainId after the tokens are deployed, so USDT and USDC
 * sit at the same addresses as on any fresh devnet). The Devnet's own signer signs for 31337,
 * which this node now refuses: send with `transfer` here; mine, snapshot, revert and stop on
 * `devnet` as usual.
 */
export class ChainIdDevnet {
  readonly provider: JsonRpcProvider;
  private readonly payer: NonceManager;

  private constructor(
    readonly devnet: Devnet,
    readonly chainId: number,
  ) {
    const network = Network.from(chainId);
    this.provider = new JsonRpcProvider(devnet.rpcUrl, network, {
      staticNetwork: network,
      cacheTimeout: -1,
      pollingInterval: 100,
    });
    this.payer = new NonceManager(new Wallet(DEVNET_ACCOUNTS.payer.privateKey, this.provider));
  }

  static async start(chainId: number, options: DevnetOptions = {}): Promise<ChainIdDevnet> {
    const devnet = await startDevnet(options);
    try {
      await devnet.provider.send('anvil_setChainId', [chainId]);
      return new ChainIdDevnet(devnet, chainId);
    } catch (error) {
      await devnet.stop();
      throw error;
    }
  }

  get rpcUrl(): string {
    return this.devnet.rpcUrl;
  }

  get tokens(): DevnetTokens {
    return this.devnet.tokens;
  }

  /** Sends `amount` (whole tokens, "0" allowed) of the token from the payer; waits until mined. */
  async transfer(currency: Currency, to: string, amount: string): Promise<SentTransfer> {
    const token = this.tokens[currency];
    const contract = new Contract(token.contract, TRANSFER_ABI, this.payer);
    const send = contract.getFunction('transfer');
    const response = (await send(to, parseUnits(amount, token.decimals))) as TransactionResponse;
    const receipt = await response.wait();
    if (!receipt) throw new Error(`No receipt for ${response.hash}.`);
    return { txHash: receipt.hash.toLowerCase(), blockNumber: receipt.blockNumber };
  }

  /** After `devnet.revert`: the payer's later nonces are free again. */
  resetNonces(): void {
    this.payer.reset();
  }

  async stop(): Promise<void> {
    this.provider.destroy();
    await this.devnet.stop();
  }
}

/** The signed transaction as it was broadcast: sent again after a reorg, it is mined again. */
export async function rawTransaction(provider: JsonRpcProvider, txHash: string): Promise<string> {
  const response = await provider.getTransaction(txHash);
  if (!response) throw new Error(`No transaction ${txHash}.`);
  return Transaction.from(response).serialized;
}

export interface DevnetNetwork {
  rpcUrl: string;
  tokens: DevnetTokens;
  chainId: number;
  confirmations: number;
}

/** The content of a NETWORKS_FILE mapping each named network onto its devnet. */
export function devnetNetworksFileJson(
  networks: Partial<Record<NetworkName, DevnetNetwork>>,
): string {
  const entries = Object.entries(networks).map(([name, network]) => [
    name,
    {
      displayName: `${DEVNET_DISPLAY_NAME} as ${name}`,
      chainId: network.chainId,
      rpcUrls: [network.rpcUrl],
      wsUrl: webSocketUrlOf(network.rpcUrl),
      publicRpcUrl: network.rpcUrl,
      confirmations: network.confirmations,
      // anvil charges no L1 data fee: BASE and OPTIMISM mapped onto it would keep their default
      // true and wait for an l1Fee no receipt carries.
      opStack: false,
      tokens: { USDT: { ...network.tokens.USDT }, USDC: { ...network.tokens.USDC } },
    },
  ]);
  return JSON.stringify({ networks: Object.fromEntries(entries) }, null, 2);
}
