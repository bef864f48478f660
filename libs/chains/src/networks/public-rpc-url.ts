/*
 * A network's publicRpcUrl is shown to every payer as a session's `detection_rpc_url`, so it must
 * carry nothing that grants access: hosted RPC providers put the customer's key in the path
 * (Infura /v3/<key>, Alchemy /v2/<key>, QuickNode /<token>/, Ankr /eth/<key>, ...) or in the
 * query (?apikey=). The worker's own rpcUrls may carry keys; they are never shown.
 */

/** Hosts whose RPC URLs name the customer's key in the path: any path there is refused. */
const KEYED_PATH_PROVIDERS: Array<{ host: RegExp; example: string }> = [
  { host: /(^|\.)infura\.io$/, example: 'Infura /v3/<key>' },
  { host: /(^|\.)alchemy(api)?\.(com|io)$/, example: 'Alchemy /v2/<key>' },
  { host: /(^|\.)quiknode\.pro$/, example: 'QuickNode /<token>/' },
  { host: /(^|\.)nodereal\.io$/, example: 'NodeReal /v1/<key>' },
  { host: /(^|\.)getblock\.io$/, example: 'GetBlock /<key>/' },
  { host: /(^|\.)blastapi\.io$/, example: 'Blast /<project id>' },
  { host: /(^|\.)nownodes\.io$/, example: 'NOWNodes /<key>' },
  { host: /(^|\.)p2pify\.com$/, example: 'Chainstack /<key>' },
  { host: /(^|\.)chainstack\.com$/, example: 'Chainstack /<key>' },
  { host: /(^|\.)moralis-nodes\.com$/, example: 'Moralis /<key>' },
];
/** Ankr's public endpoints are /<chain>; a second segment is the premium key (/eth/<key>). */
const ANKR_HOST = /(^|\.)ankr\.com$/;

// Segments that read like credentials rather than names: long hex (Infura, Ankr and QuickNode
// keys), UUIDs (project ids), and long tokens that switch between lower case, upper case and
// digits again and again (Alchemy's base62 keys), unlike names ("ethereum-sepolia-archive-2024").
const HEX_KEY = /^(0x)?[0-9a-f]{16,}$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN = /^[A-Za-z0-9_-]{20,}$/;
const MIN_CLASS_CHANGES = 6;
const KEY_WORDS = /(api[_-]?key|apikey|access[_-]?key|secret|token|auth|password|passwd|key)/i;

function characterClass(character: string): 'lower' | 'upper' | 'digit' {
  if (/[0-9]/.test(character)) return 'digit';
  return character === character.toLowerCase() ? 'lower' : 'upper';
}

function looksLikeKey(segment: string): boolean {
  if (HEX_KEY.test(segment) || UUID.test(segment)) return true;
  if (!TOKEN.test(segment)) return false;
  const classes = [...segment.replace(/[-_]/g, '')].map(characterClass);
  const changes = classes.filter((kind, index) => index > 0 && kind !== classes[index - 1]).length;
  return changes >= MIN_CLASS_CHANGES;
}

function decodedSegments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

/**
 * Why `value` cannot be shown publicly as an RPC URL (credentials, a query string, a provider key
 * in the path), or null when it can. The reason never repeats the URL or the key.
 */
export function secretInPublicRpcUrl(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'it carries credentials (user:password@)';
  if (url.search !== '') {
    const names = [...url.searchParams.keys()];
    const keyName = names.find((name) => KEY_WORDS.test(name));
    return keyName === undefined
      ? 'it has a query string, where providers put API keys (?apikey=...)'
      : `its query parameter "${keyName}" carries a key`;
  }
  if (url.hash !== '') return 'it has a fragment (#...)';
  const host = url.hostname.toLowerCase();
  const segments = decodedSegments(url);
  const provider = KEYED_PATH_PROVIDERS.find((candidate) => candidate.host.test(host));
  if (provider && segments.length > 0) {
    return `its path carries a provider key (${provider.example})`;
  }
  if (ANKR_HOST.test(host) && segments.length > 1) {
    return 'its path carries a provider key (Ankr /<chain>/<key>)';
  }
  const position = segments.findIndex(looksLikeKey);
  if (position >= 0) return `path segment ${position + 1} looks like an API key`;
  if (segments.some((segment) => KEY_WORDS.test(segment) && /[=:]/.test(segment))) {
    return 'its path carries a key parameter';
  }
  return null;
}
