import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAINNET_NETWORKS, TESTNET_NETWORKS } from './default-networks';
import { loadNetworkRegistry, NetworkRegistry } from './network-registry';
import { NetworksFileError } from './networks-file';
import { finalityBlocksOf } from './network.types';

const LOCAL_USDT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('NetworkRegistry', () => {
  it('serves testnets in the sandbox and mainnets in production', () => {
    expect(new NetworkRegistry('sandbox').get('ETHEREUM')).toEqual(TESTNET_NETWORKS.ETHEREUM);
    expect(new NetworkRegistry('production').get('ETHEREUM')).toEqual(MAINNET_NETWORKS.ETHEREUM);
    expect(new NetworkRegistry('production').get('TRON').chainId).toBe(728126428);
  });

  it('lists every network in a stable order', () => {
    expect(new NetworkRegistry('sandbox').list().map((network) => network.name)).toEqual([
      'TRON',
      'BSC',
      'ETHEREUM',
      'POLYGON',
      'ARBITRUM',
      'BASE',
      'OPTIMISM',
    ]);
  });

  it.each(['sandbox', 'production'] as const)('knows each token decimals (%s)', (env) => {
    const registry = new NetworkRegistry(env);
    expect(registry.token('BSC', 'USDT')?.decimals).toBe(18);
    expect(registry.token('BSC', 'USDC')?.decimals).toBe(18);
    expect(registry.token('ETHEREUM', 'USDT')?.decimals).toBe(6);
    expect(registry.token('ETHEREUM', 'USDC')?.decimals).toBe(6);
    expect(registry.token('TRON', 'USDT')?.decimals).toBe(6);
  });

  it.each(['sandbox', 'production'] as const)('has no TRON USDC and no BASE USDT (%s)', (env) => {
    const registry = new NetworkRegistry(env);
    expect(registry.token('TRON', 'USDC')).toBeUndefined();
    expect(registry.token('BASE', 'USDT')).toBeUndefined();
  });

  it('groups networks by chain family', () => {
    const registry = new NetworkRegistry('production');
    expect(registry.networksOfFamily('TRON').map((network) => network.name)).toEqual(['TRON']);
    expect(registry.networksOfFamily('EVM')).toHaveLength(6);
  });

  it('throws on an unknown network name', () => {
    const registry = new NetworkRegistry('sandbox');
    expect(() => registry.get('SOLANA' as never)).toThrow('Unknown network "SOLANA"');
    expect(() => registry.get('toString' as never)).toThrow('Unknown network "toString"');
  });

  it('hands out configs nobody can change', () => {
    const registry = new NetworkRegistry('sandbox');
    const ethereum = registry.get('ETHEREUM');
    expect(Object.isFrozen(ethereum)).toBe(true);
    expect(Object.isFrozen(ethereum.rpcUrls)).toBe(true);
    expect(Object.isFrozen(ethereum.tokens.USDC)).toBe(true);
    expect(() => {
      (ethereum as { confirmations: number }).confirmations = 0;
    }).toThrow(TypeError);
    expect(TESTNET_NETWORKS.ETHEREUM.confirmations).toBe(12);
  });

  it('applies a NETWORKS_FILE over the defaults', () => {
    const registry = new NetworkRegistry('sandbox', {
      networks: {
        ETHEREUM: {
          displayName: 'Local devnet',
          chainId: 31337,
          rpcUrls: ['http://127.0.0.1:8545'],
          publicRpcUrl: 'http://127.0.0.1:8545',
          confirmations: 1,
          tokens: { USDT: { contract: LOCAL_USDT.toLowerCase(), decimals: 6 } },
        },
        POLYGON: { tokens: { USDC: null } },
        TRON: { name: 'TRON', chainFamily: 'TRON', confirmations: 1 },
      },
    });
    expect(registry.get('ETHEREUM')).toEqual({
      ...TESTNET_NETWORKS.ETHEREUM,
      displayName: 'Local devnet',
      chainId: 31337,
      rpcUrls: ['http://127.0.0.1:8545'],
      publicRpcUrl: 'http://127.0.0.1:8545',
      confirmations: 1,
      tokens: {
        USDT: { contract: LOCAL_USDT, decimals: 6 },
        USDC: TESTNET_NETWORKS.ETHEREUM.tokens.USDC,
      },
    });
    expect(registry.token('POLYGON', 'USDC')).toBeUndefined();
    expect(registry.get('TRON').confirmations).toBe(1);
    expect(registry.get('BSC')).toEqual(TESTNET_NETWORKS.BSC);
  });

  const networks = (entry: unknown) => ({ networks: { ETHEREUM: entry } });
  const token = (contract: unknown, decimals: unknown = 6) => ({
    tokens: { USDT: { contract, decimals } },
  });

  it.each([
    ['a file that is not an object', [], 'must hold a JSON object'],
    ['an unknown top-level field', { networks: {}, extra: 1 }, 'extra: unknown field'],
    ['a missing networks object', {}, 'networks must be an object'],
    ['an unknown network', { networks: { SOLANA: {} } }, 'networks.SOLANA: unknown network'],
    ['a network that is not an object', { networks: { BSC: 5 } }, 'networks.BSC must be an object'],
    ['an unknown field', networks({ gasPrice: 1 }), 'networks.ETHEREUM.gasPrice: unknown field'],
    ['a renamed network', networks({ name: 'BSC' }), 'networks.ETHEREUM.name'],
    ['a changed family', networks({ chainFamily: 'TRON' }), 'networks.ETHEREUM.chainFamily'],
    ['an empty display name', networks({ displayName: ' ' }), 'networks.ETHEREUM.displayName'],
    ['a fractional chain id', networks({ chainId: 1.5 }), 'networks.ETHEREUM.chainId'],
    ['an ftp RPC URL', networks({ rpcUrls: ['ftp://x'] }), 'networks.ETHEREUM.rpcUrls'],
    ['a malformed RPC URL', networks({ rpcUrls: ['not a url'] }), 'networks.ETHEREUM.rpcUrls'],
    ['an empty RPC list', networks({ rpcUrls: [] }), 'networks.ETHEREUM.rpcUrls'],
    ['an RPC URL string', networks({ rpcUrls: 'https://x.io' }), 'networks.ETHEREUM.rpcUrls'],
    ['an http WebSocket URL', networks({ wsUrl: 'https://x.io' }), 'networks.ETHEREUM.wsUrl'],
    ['a malformed WebSocket URL', networks({ wsUrl: 'ws://' }), 'networks.ETHEREUM.wsUrl'],
    [
      'a WebSocket URL on TRON',
      { networks: { TRON: { wsUrl: 'wss://tron.example.com' } } },
      'networks.TRON.wsUrl: new-head subscriptions exist only on EVM networks',
    ],
    ['a bad public URL', networks({ publicRpcUrl: 'x' }), 'networks.ETHEREUM.publicRpcUrl'],
    [
      'a public URL with credentials',
      networks({ publicRpcUrl: 'https://user:pass@rpc.example.com' }),
      'networks.ETHEREUM.publicRpcUrl',
    ],
    [
      'a public URL with an API key',
      networks({ publicRpcUrl: 'https://rpc.example.com/?apikey=1' }),
      'networks.ETHEREUM.publicRpcUrl',
    ],
    [
      'a public URL with an Infura key in its path',
      networks({ publicRpcUrl: 'https://mainnet.infura.io/v3/84842078b09946638c03157f83405213' }),
      /networks\.ETHEREUM\.publicRpcUrl is shown to payers as detection_rpc_url, but its path carries a provider key \(Infura/,
    ],
    [
      'a public URL with an Alchemy key in its path',
      networks({
        publicRpcUrl: 'https://eth-mainnet.g.alchemy.com/v2/Zp3xJ9kQw2LmN7vB4tR8yH1cD6fG0sAe',
      }),
      /networks\.ETHEREUM\.publicRpcUrl[^\n]*Alchemy \/v2\/<key>/,
    ],
    ['fractional confirmations', networks({ confirmations: 1.5 }), 'ETHEREUM.confirmations'],
    ['text confirmations', networks({ confirmations: '12' }), 'ETHEREUM.confirmations'],
    ['zero confirmations', networks({ confirmations: 0 }), 'ETHEREUM.confirmations'],
    ['zero finality', networks({ finalityBlocks: 0 }), 'ETHEREUM.finalityBlocks must'],
    [
      'finality below confirmations',
      networks({ confirmations: 12, finalityBlocks: 5 }),
      'ETHEREUM.finalityBlocks (5) must not be below confirmations (12)',
    ],
    [
      'an OP-stack flag that is not a boolean',
      networks({ opStack: 'yes' }),
      'ETHEREUM.opStack must',
    ],
    [
      'an OP-stack flag on TRON',
      { networks: { TRON: { opStack: true } } },
      'networks.TRON.opStack: OP-stack rollups are EVM networks',
    ],
    ['tokens that are a list', networks({ tokens: [] }), 'networks.ETHEREUM.tokens must'],
    ['an unknown currency', networks({ tokens: { DAI: null } }), 'ETHEREUM.tokens.DAI: unknown'],
    ['a token that is a string', networks({ tokens: { USDT: 'x' } }), 'ETHEREUM.tokens.USDT must'],
    ['decimals above 36', networks(token(LOCAL_USDT, 37)), 'ETHEREUM.tokens.USDT.decimals'],
    ['negative decimals', networks(token(LOCAL_USDT, -1)), 'ETHEREUM.tokens.USDT.decimals'],
    ['fractional decimals', networks(token(LOCAL_USDT, 6.5)), 'ETHEREUM.tokens.USDT.decimals'],
    ['missing decimals', networks({ tokens: { USDT: { contract: LOCAL_USDT } } }), 'USDT.decimals'],
    ['a short EVM contract', networks(token('0x1234')), 'ETHEREUM.tokens.USDT.contract'],
    [
      'an EVM contract with a wrong checksum',
      networks(token('0x5fbDB2315678afecb367f032d93F642f64180aa3')),
      'ETHEREUM.tokens.USDT.contract',
    ],
    [
      'a TRON contract on an EVM network',
      networks(token('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')),
      'ETHEREUM.tokens.USDT.contract must be an EVM address',
    ],
    [
      'an unknown token field',
      networks({ tokens: { USDT: { contract: LOCAL_USDT, decimals: 6, symbol: 'USDT' } } }),
      'ETHEREUM.tokens.USDT.symbol: unknown field',
    ],
    [
      'an EVM contract on TRON',
      { networks: { TRON: token(LOCAL_USDT) } },
      'networks.TRON.tokens.USDT.contract must be a base58 TRON address',
    ],
    [
      'a TRON contract in hex form',
      { networks: { TRON: token('41a614f803b6fd780986a42c78ec9c7f77e6ded13c') } },
      'networks.TRON.tokens.USDT.contract',
    ],
    [
      'a TRON contract with a broken checksum',
      { networks: { TRON: token('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u') } },
      'networks.TRON.tokens.USDT.contract',
    ],
  ])('refuses %s', (_label, file, entry) => {
    const build = () => new NetworkRegistry('sandbox', file);
    expect(build).toThrow(NetworksFileError);
    expect(build).toThrow(/^NETWORKS_FILE/);
    expect(build).toThrow(entry);
  });

  it('lists every problem of a file at once', () => {
    const build = () =>
      new NetworkRegistry('production', {
        networks: { ETHEREUM: { chainId: 0 }, BSC: { confirmations: -1 }, MOON: {} },
      });
    expect(build).toThrow(/ETHEREUM\.chainId[\s\S]*BSC\.confirmations[\s\S]*MOON/);
  });

  it('takes a ws:// or wss:// subscription URL for an EVM network, which no default has', () => {
    expect(new NetworkRegistry('production').get('ETHEREUM').wsUrl).toBeUndefined();
    const keyed = 'wss://mainnet.infura.io/ws/v3/84842078b09946638c03157f83405213';
    const registry = new NetworkRegistry('production', networks({ wsUrl: keyed }));
    expect(registry.get('ETHEREUM').wsUrl).toBe(keyed);
    expect(
      new NetworkRegistry('sandbox', networks({ wsUrl: 'ws://127.0.0.1:8545' })).get('ETHEREUM')
        .wsUrl,
    ).toBe('ws://127.0.0.1:8545');
  });

  it('never repeats a refused WebSocket URL, which may carry a key', () => {
    const keyed = 'https://mainnet.infura.io/ws/v3/84842078b09946638c03157f83405213';
    const build = () => new NetworkRegistry('production', networks({ wsUrl: keyed }));
    expect(build).toThrow(/networks\.ETHEREUM\.wsUrl must be a ws:\/\/ or wss:\/\/ URL/);
    expect(build).not.toThrow(/84842078/);
  });

  it('names a keyed public URL without repeating the key, and accepts keys in rpcUrls', () => {
    const key = '84842078b09946638c03157f83405213';
    const keyed = `https://mainnet.infura.io/v3/${key}`;
    const build = () => new NetworkRegistry('production', networks({ publicRpcUrl: keyed }));
    expect(build).toThrow(/rpcUrls, which are never shown/);
    expect(build).not.toThrow(key);
    const registry = new NetworkRegistry('production', networks({ rpcUrls: [keyed] }));
    expect(registry.get('ETHEREUM').rpcUrls).toEqual([keyed]);
    expect(registry.get('ETHEREUM').publicRpcUrl).toBe('https://ethereum-rpc.publicnode.com');
  });

  it('never repeats RPC URLs, which may carry keys', () => {
    const file = networks({ rpcUrls: ['wss://rpc.example.com/v3/SECRET-KEY'] });
    expect(() => new NetworkRegistry('sandbox', file)).not.toThrow('SECRET-KEY');
  });
});

describe('loadNetworkRegistry', () => {
  let folder: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'networks-file-'));
  });

  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('uses the defaults of the environment without a file', () => {
    const registry = loadNetworkRegistry({ env: 'production', networksFile: undefined });
    expect(registry.env).toBe('production');
    expect(registry.get('BSC')).toEqual(MAINNET_NETWORKS.BSC);
  });

  it('reads the file named by NETWORKS_FILE', () => {
    const file = join(folder, 'networks.json');
    writeFileSync(file, JSON.stringify({ networks: { BSC: { confirmations: 3 } } }));
    const registry = loadNetworkRegistry({ env: 'sandbox', networksFile: file });
    expect(registry.get('BSC').confirmations).toBe(3);
  });

  it('takes a finality depth from the file, and confirmations above it raise it', () => {
    const file = join(folder, 'networks.json');
    writeFileSync(
      file,
      JSON.stringify({
        networks: { BSC: { finalityBlocks: 16 }, POLYGON: { confirmations: 300 } },
      }),
    );
    const registry = loadNetworkRegistry({ env: 'sandbox', networksFile: file });
    expect(finalityBlocksOf(registry.get('BSC'))).toBe(16);
    expect(finalityBlocksOf(registry.get('POLYGON'))).toBe(300);
  });

  it('knows the OP-stack networks, and takes the flag from the file for any EVM network', () => {
    for (const env of ['sandbox', 'production'] as const) {
      const registry = new NetworkRegistry(env);
      const opStack = registry.list().filter((network) => network.opStack === true);
      expect(opStack.map((network) => network.name)).toEqual(['BASE', 'OPTIMISM']);
    }
    const file = join(folder, 'networks.json');
    writeFileSync(
      file,
      JSON.stringify({ networks: { ETHEREUM: { opStack: true }, BASE: { opStack: false } } }),
    );
    const registry = loadNetworkRegistry({ env: 'sandbox', networksFile: file });
    expect(registry.get('ETHEREUM').opStack).toBe(true);
    expect(registry.get('BASE').opStack).toBe(false);
    // Fields the file does not name keep the default: BASE on other RPC URLs is still OP-stack.
    writeFileSync(file, JSON.stringify({ networks: { BASE: { confirmations: 3 } } }));
    expect(loadNetworkRegistry({ env: 'sandbox', networksFile: file }).get('BASE').opStack).toBe(
      true,
    );
  });

  it('names the file when its content is refused', () => {
    const file = join(folder, 'networks.json');
    writeFileSync(file, JSON.stringify({ networks: { BSC: { confirmations: 'many' } } }));
    expect(() => loadNetworkRegistry({ env: 'sandbox', networksFile: file })).toThrow(
      `NETWORKS_FILE (${file}) is invalid`,
    );
  });

  it('refuses a file that is missing or not JSON', () => {
    const missing = join(folder, 'missing.json');
    expect(() => loadNetworkRegistry({ env: 'sandbox', networksFile: missing })).toThrow(
      /^NETWORKS_FILE .* cannot be read/,
    );
    const broken = join(folder, 'broken.json');
    writeFileSync(broken, '{"networks": ');
    expect(() => loadNetworkRegistry({ env: 'sandbox', networksFile: broken })).toThrow(
      /^NETWORKS_FILE .* is not valid JSON/,
    );
    writeFileSync(broken, '{"rpcUrls": [https://rpc.example.com/SECRET-KEY]}');
    expect(() => loadNetworkRegistry({ env: 'sandbox', networksFile: broken })).not.toThrow(
      'SECRET',
    );
  });
});
