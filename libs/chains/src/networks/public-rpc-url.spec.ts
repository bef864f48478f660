import { MAINNET_NETWORKS, TESTNET_NETWORKS } from './default-networks';
import { secretInPublicRpcUrl } from './public-rpc-url';

const INFURA_KEY = '84842078b09946638c03157f83405213';
const ALCHEMY_KEY = 'Zp3xJ9kQw2LmN7vB4tR8yH1cD6fG0sAe';
const ANKR_KEY = 'c4a1d2e3f4b5a6978899aabbccddeeff00112233445566778899aabbccddeeff';

describe('secretInPublicRpcUrl', () => {
  it.each([
    ['Infura /v3/<key>', `https://mainnet.infura.io/v3/${INFURA_KEY}`, /Infura/],
    ['Infura on a testnet', `https://sepolia.infura.io/v3/${INFURA_KEY}`, /Infura/],
    ['Alchemy /v2/<key>', `https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY_KEY}`, /Alchemy/],
    ["Alchemy's short demo key", 'https://eth-mainnet.g.alchemy.com/v2/demo', /Alchemy/],
    ['Ankr premium /<chain>/<key>', `https://rpc.ankr.com/eth/${ANKR_KEY}`, /Ankr/],
    ['a QuickNode token', 'https://black-dawn-sky.quiknode.pro/a1b2c3/', /QuickNode/],
    ['NodeReal /v1/<key>', `https://bsc-mainnet.nodereal.io/v1/${INFURA_KEY}`, /NodeReal/],
    ['a hex key on any host', `https://rpc.example.com/${INFURA_KEY}`, /segment 1/],
    ['a key after a chain name', `https://rpc.example.com/eth/${ALCHEMY_KEY}`, /segment 2/],
    ['a UUID project id', 'https://rpc.example.com/3f2504e0-4f89-11d3-9a0c-0305e82c3301', /key/],
    ['an apikey parameter', 'https://rpc.example.com/?apikey=abc', /"apikey" carries a key/],
    ['an api_key parameter', 'https://rpc.example.com/rpc?api_key=abc', /"api_key"/],
    ['a dkey parameter', 'https://lb.drpc.org/ogrpc?network=ethereum&dkey=abc', /"dkey"/],
    ['any query string', 'https://rpc.example.com/?network=1', /query string/],
    ['credentials', 'https://user:hunter2@rpc.example.com', /credentials/],
    ['a fragment', 'https://rpc.example.com/#secret', /fragment/],
    ['a key parameter in the path', 'https://rpc.example.com/apikey=abc', /key parameter/],
  ])('refuses %s', (_label, url, reason) => {
    const found = secretInPublicRpcUrl(url);
    expect(found).toMatch(reason);
    // The reason is logged and shown: it never repeats the key.
    for (const key of [INFURA_KEY, ALCHEMY_KEY, ANKR_KEY, 'a1b2c3', 'abc', 'hunter2', 'secret']) {
      expect(found).not.toContain(key);
    }
  });

  it.each([
    'https://rpc.ankr.com/eth',
    'https://arb1.arbitrum.io/rpc',
    'https://eth.llamarpc.com',
    'https://polygon-rpc.com/',
    'https://rpc.example.com/v1/mainnet',
    'https://rpc.example.com/ethereum-sepolia-archive-2024',
    'https://data-seed-prebsc-1-s1.bnbchain.org:8545',
    'http://127.0.0.1:8545',
  ])('accepts the keyless %s', (url) => {
    expect(secretInPublicRpcUrl(url)).toBeNull();
  });

  it('accepts every built-in public RPC URL', () => {
    for (const network of [
      ...Object.values(MAINNET_NETWORKS),
      ...Object.values(TESTNET_NETWORKS),
    ]) {
      expect([network.name, secretInPublicRpcUrl(network.publicRpcUrl)]).toEqual([
        network.name,
        null,
      ]);
    }
  });
});
