import { getAddress, Interface, keccak256, Wallet } from 'ethers';

// Local signing of a gas top-up sweep's two transactions, type 2 (EIP-1559): nodes that refuse
// type-4 transactions still take these.

const ERC20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
/**
 * A plain native transfer to an account without code on a chain that charges nothing else in gas
 * (the policy's estimate only: what is signed is the node's own estimate, plainTransferGas).
 */
export const TOP_UP_GAS_LIMIT = 21_000n;

export interface EvmFeeCaps {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedEvmTransaction {
  txHash: string;
  rawTransaction: string;
}

/** The sweeper's native coin to a deposit address: exactly the gas its token transfer may burn. */
export async function signTopUp(
  sweeperPrivateKey: string,
  input: {
    chainId: number;
    to: string;
    value: bigint;
    nonce: number;
    gasLimit: bigint;
    fees: EvmFeeCaps;
  },
): Promise<SignedEvmTransaction> {
  return sign(sweeperPrivateKey, {
    to: getAddress(input.to),
    value: input.value,
    data: '0x',
    nonce: input.nonce,
    gasLimit: input.gasLimit,
    chainId: input.chainId,
    fees: input.fees,
  });
}

/**
 * `treasury:cancel-nonce`: a zero-value send from the sweeper to itself with a stuck sweep's
 * nonce. Mined, it proves that no transaction of that sweep can be mined any more.
 */
export async function signSweeperCancel(
  sweeperPrivateKey: string,
  input: { chainId: number; sweeper: string; nonce: number; gasLimit: bigint; fees: EvmFeeCaps },
): Promise<SignedEvmTransaction> {
  return sign(sweeperPrivateKey, {
    to: getAddress(input.sweeper),
    value: 0n,
    data: '0x',
    nonce: input.nonce,
    gasLimit: input.gasLimit,
    chainId: input.chainId,
    fees: input.fees,
  });
}

/**
 * The deposit address's transfer() of `amount` of a network token to the hot wallet or the
 * treasury, checked before signing: what holds the deposit keys signs nothing else.
 */
export async function signDepositTransfer(
  depositPrivateKey: string,
  input: {
    chainId: number;
    token: string;
    to: string;
    amount: bigint;
    nonce: number;
    gasLimit: bigint;
    fees: EvmFeeCaps;
  },
  allowed: { tokens: string[]; destinations: string[] },
): Promise<SignedEvmTransaction> {
  const same = (a: string) => (b: string) => getAddress(a) === getAddress(b);
  if (!allowed.tokens.some(same(input.token))) {
    throw new Error(`${input.token} is not a token of the network: not signed.`);
  }
  if (!allowed.destinations.some(same(input.to))) {
    throw new Error(`${input.to} is not the hot wallet or the treasury: not signed.`);
  }
  if (input.amount <= 0n) throw new Error('A sweep transfer moves a positive amount.');
  return sign(depositPrivateKey, {
    to: getAddress(input.token),
    value: 0n,
    data: ERC20.encodeFunctionData('transfer', [getAddress(input.to), input.amount]),
    nonce: input.nonce,
    gasLimit: input.gasLimit,
    chainId: input.chainId,
    fees: input.fees,
  });
}

async function sign(
  privateKey: string,
  input: {
    to: string;
    value: bigint;
    data: string;
    nonce: number;
    gasLimit: bigint;
    chainId: number;
    fees: EvmFeeCaps;
  },
): Promise<SignedEvmTransaction> {
  let rawTransaction: string;
  try {
    const key = privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`;
    rawTransaction = await new Wallet(key).signTransaction({
      type: 2,
      to: input.to,
      value: input.value,
      data: input.data,
      nonce: input.nonce,
      gasLimit: input.gasLimit,
      chainId: input.chainId,
      maxFeePerGas: input.fees.maxFeePerGas,
      maxPriorityFeePerGas: input.fees.maxPriorityFeePerGas,
    });
  } catch {
    // Not the library's words: they may quote the key.
    throw new Error('Signing the sweep transaction failed.');
  }
  return { txHash: keccak256(rawTransaction), rawTransaction };
}
