import { readFileSync } from 'node:fs';
import { AppConfig, AppEnv } from '@app/common';
import { MAINNET_NETWORKS, TESTNET_NETWORKS } from './default-networks';
import {
  ChainFamily,
  Currency,
  NETWORK_NAMES,
  NetworkConfig,
  NetworkName,
  TokenConfig,
} from './network.types';
import { applyNetworksFile, KEYED_URL_ADVICE, NetworksFileError } from './networks-file';
import { secretInPublicRpcUrl } from './public-rpc-url';

/** The networks of this deployment: mainnets in production, testnets in the sandbox. */
export class NetworkRegistry {
  private readonly networks: Readonly<Record<NetworkName, NetworkConfig>>;

  /**
   * @param overrides the parsed content of a NETWORKS_FILE, validated strictly here.
   * @param source how errors name the file, e.g. "NETWORKS_FILE (/etc/networks.json)".
   */
  constructor(
    readonly env: AppEnv,
    overrides?: unknown,
    source = 'NETWORKS_FILE',
  ) {
    const defaults = env === 'production' ? MAINNET_NETWORKS : TESTNET_NETWORKS;
    const networks =
      overrides === undefined ? defaults : applyNetworksFile(defaults, overrides, source);
    assertPublicRpcUrls(networks, source);
    // Frozen copies: a caller mutating a config must not change what every other caller sees.
    this.networks = Object.freeze(
      Object.fromEntries(
        NETWORK_NAMES.map((name) => [name, freezeNetwork(networks[name])]),
      ) as Record<NetworkName, NetworkConfig>,
    );
  }

  get(name: NetworkName): NetworkConfig {
    // hasOwn: names arrive from the database or requests, and "toString" is no network.
    if (!Object.hasOwn(this.networks, name)) {
      throw new Error(`Unknown network ${JSON.stringify(name)}.`);
    }
    return this.networks[name];
  }

  list(): NetworkConfig[] {
    return NETWORK_NAMES.map((name) => this.networks[name]);
  }

  /** Undefined when the pair is not supported in this environment. */
  token(network: NetworkName, currency: Currency): TokenConfig | undefined {
    return this.get(network).tokens[currency];
  }

  networksOfFamily(family: ChainFamily): NetworkConfig[] {
    return this.list().filter((network) => network.chainFamily === family);
  }
}

/** Builds the registry from the defaults of `config.env` and the file named by NETWORKS_FILE. */
export function loadNetworkRegistry(
  config: Pick<AppConfig, 'env' | 'networksFile'>,
): NetworkRegistry {
  if (!config.networksFile) return new NetworkRegistry(config.env);
  const source = `NETWORKS_FILE (${config.networksFile})`;
  let text: string;
  try {
    text = readFileSync(config.networksFile, 'utf8');
  } catch (error) {
    throw new NetworksFileError(`${source} cannot be read: ${messageOf(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Only the position: V8 quotes a piece of the text, which may hold an RPC key.
    const position = /position (\d+)/.exec(messageOf(error))?.[1];
    const where = position === undefined ? '' : ` (at character ${position})`;
    throw new NetworksFileError(`${source} is not valid JSON${where}.`);
  }
  return new NetworkRegistry(config.env, parsed, source);
}

/**
 * Every network's detection_rpc_url, whether from the file or the built-in table, is safe to
 * show: a last check where the registry is built, so no other path can bring a keyed URL in.
 */
function assertPublicRpcUrls(networks: Record<NetworkName, NetworkConfig>, source: string): void {
  const problems = NETWORK_NAMES.flatMap((name) => {
    const secret = secretInPublicRpcUrl(networks[name].publicRpcUrl);
    return secret === null ? [] : [`networks.${name}.publicRpcUrl: ${secret}.`];
  });
  if (problems.length > 0) {
    throw new NetworksFileError(
      `${source}: detection_rpc_url would leak a key:\n  - ${problems.join('\n  - ')}\n${KEYED_URL_ADVICE}`,
    );
  }
}

function freezeNetwork(network: NetworkConfig): NetworkConfig {
  const tokens = Object.fromEntries(
    Object.entries(network.tokens).map(([currency, token]) => [
      currency,
      Object.freeze({ ...token }),
    ]),
  );
  return Object.freeze({
    ...network,
    rpcUrls: Object.freeze([...network.rpcUrls]) as string[],
    tokens: Object.freeze(tokens),
  });
}

function messageOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'message' in error
    ? String(error.message)
    : String(error);
}
