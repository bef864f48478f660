import { isValidAddress, normalizeAddress } from '../hd/addresses';
import {
  CURRENCIES,
  Currency,
  NETWORK_NAMES,
  NetworkConfig,
  NetworkName,
  TokenConfig,
} from './network.types';
import { secretInPublicRpcUrl } from './public-rpc-url';

/**
 * A NETWORKS_FILE: `{ "networks": { "ETHEREUM": { ...fields of NetworkConfig } } }`.
 * Fields given replace the built-in defaults of that network; `tokens` replaces per currency,
 * and a currency set to null removes the token (the pair becomes unsupported).
 */
export class NetworksFileError extends Error {
  override name = 'NetworksFileError';
}

type Networks = Record<NetworkName, NetworkConfig>;
type Problems = string[];

const NETWORK_FIELDS = [
  'name',
  'displayName',
  'chainFamily',
  'chainId',
  'rpcUrls',
  'wsUrl',
  'publicRpcUrl',
  'confirmations',
  'finalityBlocks',
  'opStack',
  'tokens',
] as const;
const MAX_CONFIRMATIONS = 100_000;
const MAX_DECIMALS = 36;

/** Returns the defaults with the file applied, or throws one error listing every problem. */
export function applyNetworksFile(defaults: Networks, file: unknown, source: string): Networks {
  const problems: Problems = [];
  const result = { ...defaults };
  const networks = readNetworks(file, problems);
  for (const [key, entry] of Object.entries(networks)) {
    const at = `networks.${key}`;
    if (!isNetworkName(key)) {
      problems.push(`${at}: unknown network; expected one of ${NETWORK_NAMES.join(', ')}.`);
    } else if (!isRecord(entry)) {
      problems.push(`${at} must be an object.`);
    } else {
      result[key] = applyEntry(defaults[key], entry, at, problems);
    }
  }
  if (problems.length > 0) {
    throw new NetworksFileError(`${source} is invalid:\n  - ${problems.join('\n  - ')}`);
  }
  return result;
}

function readNetworks(file: unknown, problems: Problems): Record<string, unknown> {
  if (!isRecord(file)) {
    problems.push('the file must hold a JSON object like {"networks": {...}}.');
    return {};
  }
  for (const key of Object.keys(file)) {
    if (key !== 'networks') problems.push(`${key}: unknown field; expected only "networks".`);
  }
  if (!isRecord(file.networks)) {
    problems.push('networks must be an object keyed by network name.');
    return {};
  }
  return file.networks;
}

function applyEntry(
  base: NetworkConfig,
  entry: Record<string, unknown>,
  at: string,
  problems: Problems,
): NetworkConfig {
  const config: NetworkConfig = { ...base, tokens: { ...base.tokens } };
  for (const [field, value] of Object.entries(entry)) {
    const fieldAt = `${at}.${field}`;
    switch (field) {
      // Accepted so a file can be read on its own; changing them would change what it is.
      case 'name':
        if (value !== base.name) problems.push(`${fieldAt} cannot differ from "${base.name}".`);
        break;
      case 'chainFamily':
        if (value !== base.chainFamily) {
          problems.push(`${fieldAt} cannot be changed from "${base.chainFamily}".`);
        }
        break;
      case 'displayName':
        if (typeof value === 'string' && value.trim() !== '') config.displayName = value;
        else problems.push(`${fieldAt} must be a non-empty string.`);
        break;
      case 'chainId':
        if (isWholeNumber(value, 1, Number.MAX_SAFE_INTEGER)) config.chainId = value;
        else problems.push(`${fieldAt} must be a positive whole number.`);
        break;
      case 'confirmations':
        if (isWholeNumber(value, 1, MAX_CONFIRMATIONS)) config.confirmations = value;
        else problems.push(`${fieldAt} must be a whole number from 1 to ${MAX_CONFIRMATIONS}.`);
        break;
      case 'finalityBlocks':
        if (isWholeNumber(value, 1, MAX_CONFIRMATIONS)) config.finalityBlocks = value;
        else problems.push(`${fieldAt} must be a whole number from 1 to ${MAX_CONFIRMATIONS}.`);
        break;
      case 'opStack':
        // Wrong either way: false on an OP-stack chain still adds a receipt's l1Fee, but counts 0
        // where a node leaves it out (a fee booked too low); true on another chain refuses every
        // receipt's fee (it has no l1Fee).
        if (config.chainFamily !== 'EVM') {
          problems.push(`${fieldAt}: OP-stack rollups are EVM networks.`);
        } else if (typeof value === 'boolean') config.opStack = value;
        else problems.push(`${fieldAt} must be true or false.`);
        break;
      case 'rpcUrls':
        // The value is never echoed: private RPC URLs usually carry an API key.
        if (Array.isArray(value) && value.length > 0 && value.every(isHttpUrl)) {
          config.rpcUrls = [...value];
        } else problems.push(`${fieldAt} must be a non-empty list of http(s) URLs.`);
        break;
      case 'wsUrl':
        // Never echoed either: a provider's WebSocket URL carries its key like its HTTP one.
        if (config.chainFamily !== 'EVM') {
          problems.push(`${fieldAt}: new-head subscriptions exist only on EVM networks.`);
        } else if (isWebSocketUrl(value)) config.wsUrl = value;
        else problems.push(`${fieldAt} must be a ws:// or wss:// URL.`);
        break;
      case 'publicRpcUrl':
        applyPublicRpcUrl(config, value, fieldAt, problems);
        break;
      case 'tokens':
        applyTokens(config, value, fieldAt, problems);
        break;
      default:
        problems.push(`${fieldAt}: unknown field; expected one of ${NETWORK_FIELDS.join(', ')}.`);
    }
  }
  // A fee is booked at `confirmations`: checking it again less deep would prove nothing. Only a
  // depth the file names is refused; raising confirmations alone raises finality with it.
  if (
    'finalityBlocks' in entry &&
    config.finalityBlocks !== undefined &&
    config.finalityBlocks < config.confirmations
  ) {
    problems.push(
      `${at}.finalityBlocks (${config.finalityBlocks}) must not be below confirmations ` +
        `(${config.confirmations}).`,
    );
  }
  return config;
}

/** The URL every payer sees as detection_rpc_url: refused when it would leak a key. */
function applyPublicRpcUrl(
  config: NetworkConfig,
  value: unknown,
  at: string,
  problems: Problems,
): void {
  if (!isHttpUrl(value)) {
    problems.push(`${at} must be an http(s) URL.`);
    return;
  }
  // The reason names what looks secret; the URL itself is never repeated.
  const secret = secretInPublicRpcUrl(value);
  if (secret === null) config.publicRpcUrl = value;
  else
    problems.push(
      `${at} is shown to payers as detection_rpc_url, but ${secret}. ${KEYED_URL_ADVICE}`,
    );
}

export const KEYED_URL_ADVICE =
  'Use a keyless public endpoint there; URLs with API keys belong in rpcUrls, which are never shown.';

function applyTokens(config: NetworkConfig, value: unknown, at: string, problems: Problems): void {
  if (!isRecord(value)) {
    problems.push(`${at} must be an object keyed by currency.`);
    return;
  }
  for (const [currency, token] of Object.entries(value)) {
    const tokenAt = `${at}.${currency}`;
    if (!isCurrency(currency)) {
      problems.push(`${tokenAt}: unknown currency; expected one of ${CURRENCIES.join(', ')}.`);
    } else if (token === null) {
      delete config.tokens[currency];
    } else {
      const parsed = parseToken(config, token, tokenAt, problems);
      if (parsed) config.tokens[currency] = parsed;
    }
  }
}

function parseToken(
  config: NetworkConfig,
  token: unknown,
  at: string,
  problems: Problems,
): TokenConfig | undefined {
  if (!isRecord(token)) {
    problems.push(`${at} must be an object {"contract", "decimals"} or null.`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(token)) {
    if (key !== 'contract' && key !== 'decimals') {
      problems.push(`${at}.${key}: unknown field; expected contract and decimals.`);
    }
  }
  const { contract, decimals } = token;
  if (!isValidAddress(config.chainFamily, contract)) {
    const form = config.chainFamily === 'TRON' ? 'a base58 TRON address (T...)' : 'an EVM address';
    problems.push(`${at}.contract must be ${form}, got ${JSON.stringify(contract)}.`);
  }
  if (!isWholeNumber(decimals, 0, MAX_DECIMALS)) {
    problems.push(`${at}.decimals must be a whole number from 0 to ${MAX_DECIMALS}.`);
  }
  if (problems.length > before) return undefined;
  return {
    contract: normalizeAddress(config.chainFamily, contract as string),
    decimals: decimals as number,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNetworkName(value: string): value is NetworkName {
  return (NETWORK_NAMES as readonly string[]).includes(value);
}

function isCurrency(value: string): value is Currency {
  return (CURRENCIES as readonly string[]).includes(value);
}

function isWholeNumber(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function isHttpUrl(value: unknown): value is string {
  return hasProtocol(value, ['http:', 'https:']);
}

function isWebSocketUrl(value: unknown): value is string {
  return hasProtocol(value, ['ws:', 'wss:']);
}

function hasProtocol(value: unknown, protocols: string[]): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}
