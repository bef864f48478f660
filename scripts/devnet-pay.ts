import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Contract,
  ContractTransactionResponse,
  JsonRpcProvider,
  Network,
  parseUnits,
  Wallet,
} from 'ethers';
import { isValidAddress } from '../libs/chains/src/hd/addresses';

// `npm run devnet:pay -- <to_address> <amount> [USDT|USDC]`: pays from the devnet's payer
// account, as a customer's wallet would, and waits until the transfer is mined.

const DESCRIPTION_FILE = join(__dirname, '..', '.devnet', 'devnet.json');
const AMOUNT_FORMAT = /^\d+(\.\d+)?$/;
const TRANSFER_ABI = ['function transfer(address to, uint256 amount) returns (bool)'];
const USAGE = 'Usage: npm run devnet:pay -- <to_address> <amount> [USDT|USDC]';

interface DevnetDescription {
  rpc_url: string;
  chain_id: number;
  tokens: Record<string, { contract: string; decimals: number } | undefined>;
  payer_private_key: string;
}

async function main(): Promise<void> {
  const [to, amount, currency = 'USDT'] = process.argv.slice(2);
  if (!to || !amount) throw new Error(USAGE);
  if (!isValidAddress('EVM', to)) throw new Error(`Not an EVM address: ${to}`);
  const devnet = readDescription();
  const token = devnet.tokens[currency];
  if (!token) throw new Error(`Unknown currency ${currency}; expected USDT or USDC.`);
  const baseUnits = toBaseUnits(amount, token.decimals);

  const network = Network.from(devnet.chain_id);
  const provider = new JsonRpcProvider(devnet.rpc_url, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    pollingInterval: 200,
  });
  try {
    const payer = new Wallet(devnet.payer_private_key, provider);
    const contract = new Contract(token.contract, TRANSFER_ABI, payer);
    const transfer = contract.getFunction('transfer');
    const response = (await transfer(to, baseUnits)) as ContractTransactionResponse;
    const receipt = await response.wait();
    if (!receipt || receipt.status !== 1) throw new Error(`Transfer ${response.hash} failed.`);
    console.log(`Sent ${amount} ${currency} to ${to} in block ${receipt.blockNumber}`);
    console.log(receipt.hash);
  } finally {
    provider.destroy();
  }
}

/** Decimal string to base units without JS numbers; more decimals than the token has is an error. */
function toBaseUnits(amount: string, decimals: number): bigint {
  const fraction = amount.split('.')[1] ?? '';
  if (!AMOUNT_FORMAT.test(amount) || fraction.length > decimals) {
    throw new Error(
      `Amount must be a positive decimal with at most ${decimals} decimals: ${amount}`,
    );
  }
  const baseUnits = parseUnits(amount, decimals);
  if (baseUnits === 0n) throw new Error('Amount must be more than zero.');
  return baseUnits;
}

function readDescription(): DevnetDescription {
  try {
    return JSON.parse(readFileSync(DESCRIPTION_FILE, 'utf8')) as DevnetDescription;
  } catch {
    throw new Error(`${DESCRIPTION_FILE} is missing: start the devnet first (npm run devnet).`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
