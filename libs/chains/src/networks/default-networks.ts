import { NetworkConfig, NetworkName } from './network.types';

/*
 * Confirmations, the same in both tables so the sandbox shows production timing:
 * - TRON 19: a block is solidified (irreversible) once 19 of the 27 super representatives
 *   (2/3 + 1) have built on it; about a minute at 3 s blocks.
 * - ETHEREUM 12: the long-standing exchange convention (about 2.5 min). Reorgs deeper than a
 *   couple of blocks have not happened since the Merge; full finality (~13 min) is too slow
 *   for a checkout.
 * - BSC 15: fast finality (BEP-126) normally finalizes a block within a few blocks; 15 keeps a
 *   wide margin and stays under a minute.
 * - POLYGON 128: Polygon PoS has had reorgs of more than 100 blocks (157 in February 2023);
 *   128 blocks is about 4-5 minutes. Milestone finality is faster today; lower it through
 *   NETWORKS_FILE once that is relied on.
 * - ARBITRUM 20: ~0.25 s blocks ordered by the sequencer, which would have to equivocate for
 *   a reorg; 20 blocks is a few seconds.
 * - BASE, OPTIMISM 12: 2 s blocks; reorgs of the unsafe head are rare and shallow, while L1
 *   finality (15+ min) is too slow for a checkout. 12 blocks is about 24 s.
 *
 * Unsupported pairs are left out on purpose: USDC on TRON (Circle discontinued it) and USDT on
 * BASE (no Tether-issued token). Testnet pairs without a credible token are left out too.
 */

const TRON_CONFIRMATIONS = 19;
const ETHEREUM_CONFIRMATIONS = 12;
const BSC_CONFIRMATIONS = 15;
const POLYGON_CONFIRMATIONS = 128;
const ARBITRUM_CONFIRMATIONS = 20;
const OP_STACK_CONFIRMATIONS = 12;

/*
 * Finality depths (docs/treasury.md, "Fees become final"): a fee booked from a receipt at
 * `confirmations` is checked again this deep, where no reorg is expected any more, and corrected
 * if the transaction was mined again elsewhere at another price. Slower than a checkout may wait,
 * so well above the confirmations:
 * - ETHEREUM 64: two epochs, when Casper FFG finalizes the checkpoint (~13 min).
 * - POLYGON 256: twice the 157-block reorg of February 2023 (~9 min at 2 s).
 * - BSC 20: fast finality finalizes within 2-3 blocks; 20 is past the 15 confirmations.
 * - ARBITRUM 40, BASE and OPTIMISM 30: the sequencer orders blocks and only its equivocation or
 *   an L1 reorg of a batch not yet posted could reorder them; a few seconds to a minute more.
 * - TRON 19: unused (TRON fees are not checked again: they are read from solidified blocks).
 */
const TRON_FINALITY_BLOCKS = 19;
const ETHEREUM_FINALITY_BLOCKS = 64;
const BSC_FINALITY_BLOCKS = 20;
const POLYGON_FINALITY_BLOCKS = 256;
const ARBITRUM_FINALITY_BLOCKS = 40;
const OP_STACK_FINALITY_BLOCKS = 30;

/**
 * Production defaults (mainnets).
 *
 * Sources checked for every token address and its decimals:
 * - USDC: Circle's "USDC Contract Addresses" page (developers.circle.com), cross-checked with
 *   docs that mirror it (Gelato "USDC Addresses", Orderly, Range supported tokens) and
 *   explorer links quoted in repositories (etherscan/arbiscan "FiatTokenProxy", 6 decimals).
 * - USDT Ethereum/TRON/BSC: Tether's published addresses as quoted on explorer pages and token
 *   lists (bscscan "Binance-Peg BSC-USD", 18 decimals; TRON wallet-cli docs for TR7N...).
 * - USDT Arbitrum/Polygon/Optimism: USDT0 (Tether's omnichain USDT, docs.usdt0.to) as listed in
 *   its audited deployment inventory and several token registries. On Arbitrum and Polygon the
 *   long-standing USDT contracts were upgraded in place to USDT0; on Optimism USDT0 is a new
 *   contract, and the older OP-bridged USDT (0x94b008aA00579c1307B0EF2c499aD98a8ce58e58) is
 *   not Tether-issued.
 */
export const MAINNET_NETWORKS: Record<NetworkName, NetworkConfig> = {
  TRON: {
    name: 'TRON',
    displayName: 'TRON',
    chainFamily: 'TRON',
    chainId: 728126428,
    rpcUrls: ['https://api.trongrid.io'],
    publicRpcUrl: 'https://api.trongrid.io',
    confirmations: TRON_CONFIRMATIONS,
    finalityBlocks: TRON_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 },
    },
  },
  BSC: {
    name: 'BSC',
    displayName: 'BNB Smart Chain',
    chainFamily: 'EVM',
    chainId: 56,
    rpcUrls: ['https://bsc-dataseed.bnbchain.org', 'https://bsc-rpc.publicnode.com'],
    publicRpcUrl: 'https://bsc-dataseed.bnbchain.org',
    confirmations: BSC_CONFIRMATIONS,
    finalityBlocks: BSC_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
      USDC: { contract: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', decimals: 18 },
    },
  },
  ETHEREUM: {
    name: 'ETHEREUM',
    displayName: 'Ethereum',
    chainFamily: 'EVM',
    chainId: 1,
    rpcUrls: ['https://ethereum-rpc.publicnode.com'],
    publicRpcUrl: 'https://ethereum-rpc.publicnode.com',
    confirmations: ETHEREUM_CONFIRMATIONS,
    finalityBlocks: ETHEREUM_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
      USDC: { contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    },
  },
  POLYGON: {
    name: 'POLYGON',
    displayName: 'Polygon PoS',
    chainFamily: 'EVM',
    chainId: 137,
    rpcUrls: ['https://polygon-bor-rpc.publicnode.com', 'https://polygon-rpc.com'],
    publicRpcUrl: 'https://polygon-bor-rpc.publicnode.com',
    confirmations: POLYGON_CONFIRMATIONS,
    finalityBlocks: POLYGON_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', decimals: 6 },
      // Native USDC, not the bridged USDC.e (0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174).
      USDC: { contract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
    },
  },
  ARBITRUM: {
    name: 'ARBITRUM',
    displayName: 'Arbitrum One',
    chainFamily: 'EVM',
    chainId: 42161,
    rpcUrls: ['https://arb1.arbitrum.io/rpc', 'https://arbitrum-one-rpc.publicnode.com'],
    publicRpcUrl: 'https://arb1.arbitrum.io/rpc',
    confirmations: ARBITRUM_CONFIRMATIONS,
    finalityBlocks: ARBITRUM_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', decimals: 6 },
      // Native USDC, not the bridged USDC.e (0xFF970A61A04b1cA14834A43f5dE4533eBDDB5CC8).
      USDC: { contract: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', decimals: 6 },
    },
  },
  BASE: {
    name: 'BASE',
    displayName: 'Base',
    chainFamily: 'EVM',
    chainId: 8453,
    rpcUrls: ['https://mainnet.base.org', 'https://base-rpc.publicnode.com'],
    publicRpcUrl: 'https://mainnet.base.org',
    confirmations: OP_STACK_CONFIRMATIONS,
    finalityBlocks: OP_STACK_FINALITY_BLOCKS,
    opStack: true,
    tokens: {
      USDC: { contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 },
    },
  },
  OPTIMISM: {
    name: 'OPTIMISM',
    displayName: 'OP Mainnet',
    chainFamily: 'EVM',
    chainId: 10,
    rpcUrls: ['https://mainnet.optimism.io', 'https://optimism-rpc.publicnode.com'],
    publicRpcUrl: 'https://mainnet.optimism.io',
    confirmations: OP_STACK_CONFIRMATIONS,
    finalityBlocks: OP_STACK_FINALITY_BLOCKS,
    opStack: true,
    tokens: {
      // USDT0, Tether's own token on OP Mainnet (see the sources above).
      USDT: { contract: '0x01bFF41798a0BcF287b996046Ca68b395DbC1071', decimals: 6 },
      // Native USDC, not the bridged USDC.e (0x7F5c764cBc14f9669B88837ca1490cCa17c31607).
      USDC: { contract: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', decimals: 6 },
    },
  },
};

/**
 * Sandbox defaults (testnets).
 *
 * Sources checked:
 * - USDC on Sepolia, Amoy, Arbitrum Sepolia, Base Sepolia, OP Sepolia: Circle's testnet table on
 *   "USDC Contract Addresses", mirrored by Interlace's "USDC on Testing Networks" and Aave's
 *   address book (OP Sepolia USDC underlying); all 6 decimals, funded by faucet.circle.com.
 * - USDT on TRON Nile: TRON's own wallet-cli docs (TransferUSDT on Nile) and Turnkey's TRON
 *   policy examples; 6 decimals like mainnet.
 * - USDT/USDC on BSC testnet: the BNB Chain faucet's pegged test tokens, as used by the
 *   PancakeSwap SDK (USDC) and Oobit's testnet resources (USDT); 18 decimals like mainnet.
 * - USDT on Sepolia: no Tether deployment exists; Aave V3's Sepolia test USDT (bgd-labs
 *   aave-address-book, 6 decimals, mintable from Aave's faucet) is the widely used stand-in.
 * - USDT on Amoy, Arbitrum Sepolia, OP Sepolia: no credible test token found, so unsupported
 *   in the sandbox. USDT on Base Sepolia is left out like on Base.
 */
export const TESTNET_NETWORKS: Record<NetworkName, NetworkConfig> = {
  TRON: {
    name: 'TRON',
    displayName: 'TRON Nile',
    chainFamily: 'TRON',
    chainId: 3448148188,
    rpcUrls: ['https://nile.trongrid.io'],
    publicRpcUrl: 'https://nile.trongrid.io',
    confirmations: TRON_CONFIRMATIONS,
    finalityBlocks: TRON_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', decimals: 6 },
    },
  },
  BSC: {
    name: 'BSC',
    displayName: 'BNB Smart Chain Testnet',
    chainFamily: 'EVM',
    chainId: 97,
    rpcUrls: [
      'https://data-seed-prebsc-1-s1.bnbchain.org:8545',
      'https://bsc-testnet-rpc.publicnode.com',
    ],
    publicRpcUrl: 'https://data-seed-prebsc-1-s1.bnbchain.org:8545',
    confirmations: BSC_CONFIRMATIONS,
    finalityBlocks: BSC_FINALITY_BLOCKS,
    tokens: {
      USDT: { contract: '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd', decimals: 18 },
      USDC: { contract: '0x64544969ed7EBf5f083679233325356EbE738930', decimals: 18 },
    },
  },
  ETHEREUM: {
    name: 'ETHEREUM',
    displayName: 'Ethereum Sepolia',
    chainFamily: 'EVM',
    chainId: 11155111,
    rpcUrls: ['https://ethereum-sepolia-rpc.publicnode.com'],
    publicRpcUrl: 'https://ethereum-sepolia-rpc.publicnode.com',
    confirmations: ETHEREUM_CONFIRMATIONS,
    finalityBlocks: ETHEREUM_FINALITY_BLOCKS,
    tokens: {
      // Aave's test USDT: Tether has no Sepolia deployment.
      USDT: { contract: '0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0', decimals: 6 },
      USDC: { contract: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', decimals: 6 },
    },
  },
  POLYGON: {
    name: 'POLYGON',
    displayName: 'Polygon Amoy',
    chainFamily: 'EVM',
    chainId: 80002,
    rpcUrls: ['https://rpc-amoy.polygon.technology', 'https://polygon-amoy-bor-rpc.publicnode.com'],
    publicRpcUrl: 'https://rpc-amoy.polygon.technology',
    confirmations: POLYGON_CONFIRMATIONS,
    finalityBlocks: POLYGON_FINALITY_BLOCKS,
    tokens: {
      USDC: { contract: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', decimals: 6 },
    },
  },
  ARBITRUM: {
    name: 'ARBITRUM',
    displayName: 'Arbitrum Sepolia',
    chainFamily: 'EVM',
    chainId: 421614,
    rpcUrls: [
      'https://sepolia-rollup.arbitrum.io/rpc',
      'https://arbitrum-sepolia-rpc.publicnode.com',
    ],
    publicRpcUrl: 'https://sepolia-rollup.arbitrum.io/rpc',
    confirmations: ARBITRUM_CONFIRMATIONS,
    finalityBlocks: ARBITRUM_FINALITY_BLOCKS,
    tokens: {
      USDC: { contract: '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', decimals: 6 },
    },
  },
  BASE: {
    name: 'BASE',
    displayName: 'Base Sepolia',
    chainFamily: 'EVM',
    chainId: 84532,
    rpcUrls: ['https://sepolia.base.org', 'https://base-sepolia-rpc.publicnode.com'],
    publicRpcUrl: 'https://sepolia.base.org',
    confirmations: OP_STACK_CONFIRMATIONS,
    finalityBlocks: OP_STACK_FINALITY_BLOCKS,
    opStack: true,
    tokens: {
      USDC: { contract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
    },
  },
  OPTIMISM: {
    name: 'OPTIMISM',
    displayName: 'OP Sepolia',
    chainFamily: 'EVM',
    chainId: 11155420,
    rpcUrls: ['https://sepolia.optimism.io', 'https://optimism-sepolia-rpc.publicnode.com'],
    publicRpcUrl: 'https://sepolia.optimism.io',
    confirmations: OP_STACK_CONFIRMATIONS,
    finalityBlocks: OP_STACK_FINALITY_BLOCKS,
    opStack: true,
    tokens: {
      USDC: { contract: '0x5fd84259d66Cd46123540766Be93DFE6D43130D7', decimals: 6 },
    },
  },
};
