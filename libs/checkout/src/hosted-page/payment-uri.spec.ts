import { MAINNET_NETWORKS, TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { Currency, NetworkName } from '@app/chains/networks/network.types';
import { paymentUri, toBaseUnits } from './payment-uri';

const EVM_PAYER = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';
const TRON_PAYER = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

/**
 * Hand-written expectations, one row per network and token of each registry: the amount with the
 * most fractional digits the token takes, then an integer amount. Written out literally so that a
 * wrong decimals figure, chain id or contract in the registry shows up here too.
 */
type Vector = [
  registry: 'mainnet' | 'testnet',
  network: NetworkName,
  currency: Currency,
  amount: string,
  expected: string,
];

const VECTORS: Vector[] = [
  // Mainnets.
  ['mainnet', 'TRON', 'USDT', '1234.567891', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
  ['mainnet', 'TRON', 'USDT', '5000', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
  [
    'mainnet',
    'BSC',
    'USDT',
    '1234.567891234567891234',
    'ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891234567891234',
  ],
  [
    'mainnet',
    'BSC',
    'USDT',
    '5000',
    'ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000000000000000',
  ],
  [
    'mainnet',
    'BSC',
    'USDC',
    '0.000000000000000001',
    'ethereum:0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d@56/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1',
  ],
  [
    'mainnet',
    'BSC',
    'USDC',
    '12',
    'ethereum:0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d@56/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=12000000000000000000',
  ],
  [
    'mainnet',
    'ETHEREUM',
    'USDT',
    '1234.567891',
    'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'ETHEREUM',
    'USDT',
    '5000',
    'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'mainnet',
    'ETHEREUM',
    'USDC',
    '0.000001',
    'ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1',
  ],
  [
    'mainnet',
    'ETHEREUM',
    'USDC',
    '1500',
    'ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1500000000',
  ],
  [
    'mainnet',
    'POLYGON',
    'USDT',
    '99.999999',
    'ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=99999999',
  ],
  [
    'mainnet',
    'POLYGON',
    'USDT',
    '1',
    'ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1000000',
  ],
  [
    'mainnet',
    'POLYGON',
    'USDC',
    '1234.567891',
    'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'POLYGON',
    'USDC',
    '5000',
    'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'mainnet',
    'ARBITRUM',
    'USDT',
    '1234.567891',
    'ethereum:0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9@42161/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'ARBITRUM',
    'USDT',
    '5000',
    'ethereum:0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9@42161/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'mainnet',
    'ARBITRUM',
    'USDC',
    '1234.567891',
    'ethereum:0xaf88d065e77c8cC2239327C5EDb3A432268e5831@42161/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'ARBITRUM',
    'USDC',
    '5000',
    'ethereum:0xaf88d065e77c8cC2239327C5EDb3A432268e5831@42161/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'mainnet',
    'BASE',
    'USDC',
    '1234.567891',
    'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'BASE',
    'USDC',
    '5000',
    'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'mainnet',
    'OPTIMISM',
    'USDT',
    '1234.567891',
    'ethereum:0x01bFF41798a0BcF287b996046Ca68b395DbC1071@10/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'OPTIMISM',
    'USDT',
    '5000',
    'ethereum:0x01bFF41798a0BcF287b996046Ca68b395DbC1071@10/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'mainnet',
    'OPTIMISM',
    'USDC',
    '1234.567891',
    'ethereum:0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85@10/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'mainnet',
    'OPTIMISM',
    'USDC',
    '5000',
    'ethereum:0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85@10/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  // Testnets.
  ['testnet', 'TRON', 'USDT', '1234.567891', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
  ['testnet', 'TRON', 'USDT', '5000', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
  [
    'testnet',
    'BSC',
    'USDT',
    '1234.567891234567891234',
    'ethereum:0x337610d27c682E347C9cD60BD4b3b107C9d34dDd@97/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891234567891234',
  ],
  [
    'testnet',
    'BSC',
    'USDT',
    '5000',
    'ethereum:0x337610d27c682E347C9cD60BD4b3b107C9d34dDd@97/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000000000000000',
  ],
  [
    'testnet',
    'BSC',
    'USDC',
    '0.123456789012345678',
    'ethereum:0x64544969ed7EBf5f083679233325356EbE738930@97/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=123456789012345678',
  ],
  [
    'testnet',
    'BSC',
    'USDC',
    '1',
    'ethereum:0x64544969ed7EBf5f083679233325356EbE738930@97/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1000000000000000000',
  ],
  [
    'testnet',
    'ETHEREUM',
    'USDT',
    '1234.567891',
    'ethereum:0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0@11155111/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'testnet',
    'ETHEREUM',
    'USDT',
    '5000',
    'ethereum:0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0@11155111/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'testnet',
    'ETHEREUM',
    'USDC',
    '1234.567891',
    'ethereum:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238@11155111/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'testnet',
    'ETHEREUM',
    'USDC',
    '5000',
    'ethereum:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238@11155111/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'testnet',
    'POLYGON',
    'USDC',
    '1234.567891',
    'ethereum:0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582@80002/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'testnet',
    'POLYGON',
    'USDC',
    '5000',
    'ethereum:0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582@80002/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'testnet',
    'ARBITRUM',
    'USDC',
    '1234.567891',
    'ethereum:0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d@421614/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'testnet',
    'ARBITRUM',
    'USDC',
    '5000',
    'ethereum:0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d@421614/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'testnet',
    'BASE',
    'USDC',
    '1234.567891',
    'ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'testnet',
    'BASE',
    'USDC',
    '5000',
    'ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
  [
    'testnet',
    'OPTIMISM',
    'USDC',
    '1234.567891',
    'ethereum:0x5fd84259d66Cd46123540766Be93DFE6D43130D7@11155420/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1234567891',
  ],
  [
    'testnet',
    'OPTIMISM',
    'USDC',
    '5000',
    'ethereum:0x5fd84259d66Cd46123540766Be93DFE6D43130D7@11155420/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=5000000000',
  ],
];

const REGISTRIES = { mainnet: MAINNET_NETWORKS, testnet: TESTNET_NETWORKS };

describe('paymentUri', () => {
  it.each(VECTORS)('%s %s %s %s', (registry, network, currency, amount, expected) => {
    const config = REGISTRIES[registry][network];
    const token = config.tokens[currency];
    if (!token) throw new Error(`${registry} ${network} has no ${currency}`);
    const uri = paymentUri({
      chainFamily: config.chainFamily,
      chainId: config.chainId,
      tokenContract: token.contract,
      tokenDecimals: token.decimals,
      payAddress: config.chainFamily === 'TRON' ? TRON_PAYER : EVM_PAYER,
      amount,
    });
    expect(uri).toBe(expected);
    expect(uri).not.toMatch(/[eE][+-]?[0-9]+$/);
  });

  it('covers every network and token of both registries, twice each', () => {
    for (const [registry, networks] of Object.entries(REGISTRIES)) {
      for (const config of Object.values(networks)) {
        for (const currency of Object.keys(config.tokens)) {
          const rows = VECTORS.filter(
            ([r, n, c]) => r === registry && n === config.name && c === currency,
          );
          expect({ registry, network: config.name, currency, rows: rows.length }).toEqual({
            registry,
            network: config.name,
            currency,
            rows: 2,
          });
        }
      }
    }
    expect(VECTORS).toHaveLength(42);
  });

  const evm = {
    chainFamily: 'EVM' as const,
    chainId: 1,
    tokenContract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    tokenDecimals: 6,
    payAddress: EVM_PAYER,
  };

  it('keeps the chain id even for chain 1 and writes huge amounts without an exponent', () => {
    expect(paymentUri({ ...evm, tokenDecimals: 18, amount: '123456789012345678901234' })).toBe(
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=123456789012345678901234000000000000000000',
    );
  });

  it('refuses what cannot be paid exactly or is no address', () => {
    expect(() => paymentUri({ ...evm, amount: '1.0000001' })).toThrow(RangeError);
    expect(() => paymentUri({ ...evm, amount: '1e3' })).toThrow(TypeError);
    expect(() => paymentUri({ ...evm, amount: '-1' })).toThrow(TypeError);
    expect(() => paymentUri({ ...evm, chainId: 0, amount: '1' })).toThrow(TypeError);
    expect(() => paymentUri({ ...evm, payAddress: '0x12&uint256=1', amount: '1' })).toThrow(
      TypeError,
    );
    expect(() =>
      paymentUri({ ...evm, chainFamily: 'TRON', payAddress: EVM_PAYER, amount: '1' }),
    ).toThrow(TypeError);
  });
});

describe('toBaseUnits', () => {
  it.each([
    ['0', 6, '0'],
    ['0.000001', 6, '1'],
    ['10.5', 6, '10500000'],
    ['007.50', 6, '7500000'],
    ['1.500000000', 6, '1500000'],
    ['1', 0, '1'],
    ['9007199254740993', 6, '9007199254740993000000'],
    ['0.1', 18, '100000000000000000'],
  ])('%s with %i decimals is %s', (amount, decimals, expected) => {
    expect(toBaseUnits(amount, decimals)).toBe(expected);
  });

  it.each(['', '.5', '1.', ' 1', '1,5', '+1', 'NaN', 'Infinity', '0x10'])(
    'refuses %p',
    (amount) => {
      expect(() => toBaseUnits(amount, 6)).toThrow(TypeError);
    },
  );

  it('refuses impossible decimals', () => {
    expect(() => toBaseUnits('1', -1)).toThrow(RangeError);
    expect(() => toBaseUnits('1', 1.5)).toThrow(RangeError);
  });
});
