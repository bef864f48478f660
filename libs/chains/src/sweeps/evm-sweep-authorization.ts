import { Authorization, getAddress, isAddress, SigningKey, Wallet } from 'ethers';

export interface SweepAuthorizationRequest {
  /** The delegate the deposit address will run: the network's SweepDelegate. */
  delegate: string;
  /** The network's chain id, never 0 (an authorization for chain 0 is valid on every chain). */
  chainId: number;
  /** The deposit address's current nonce (the sweeper, not the address, sends the transaction). */
  nonce: number | bigint;
}

/**
 * Signs the EIP-7702 authorization by which a deposit address delegates to the sweep delegate.
 * The deposit key signs nothing else, so this refuses anything but the delegate the network's
 * configuration names (`expectedDelegate`) and an explicit chain id. Errors never carry the key.
 */
export function signSweepAuthorization(
  depositPrivateKey: string | SigningKey,
  request: SweepAuthorizationRequest,
  expectedDelegate: string,
): Authorization {
  const { delegate, chainId, nonce } = request;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new Error(`A sweep authorization needs the network's chain id, got ${chainId}.`);
  }
  if (!isAddress(delegate) || !isAddress(expectedDelegate)) {
    throw new Error('The sweep delegate and the expected delegate must be addresses.');
  }
  if (getAddress(delegate) !== getAddress(expectedDelegate)) {
    throw new Error(
      `Refusing to authorize ${getAddress(delegate)}: the network's sweep delegate is ` +
        `${getAddress(expectedDelegate)}.`,
    );
  }
  const nonceValue = BigInt(nonce);
  if (nonceValue < 0n || nonceValue >= 2n ** 64n) {
    throw new Error(`An authorization nonce is a uint64, got ${nonceValue}.`);
  }
  return walletOf(depositPrivateKey).authorizeSync({
    address: getAddress(delegate),
    chainId: BigInt(chainId),
    nonce: nonceValue,
  });
}

/** The wallet of a key; a malformed key fails with a message that does not contain it. */
export function walletOf(privateKey: string | SigningKey): Wallet {
  try {
    return new Wallet(privateKey);
  } catch {
    throw new Error('The private key is not a valid secp256k1 key.');
  }
}
