import { keccak256 } from 'ethers';

const HEX_BYTES = /^0x([0-9a-fA-F]{2})+$/;

/**
 * Whether stored EVM bytes are the transaction the stored hash names: keccak256 of the bytes as
 * sent. The tracker follows the stored hash; bytes of another transaction sent in its name would
 * be mined unseen, and their nonce taken by "none of the payout's attempts" would have the payout
 * signed anew: paid twice (review r8, F7). TRON's stored text is JSON whose hash the node gave
 * (its txID): not checked here.
 */
export function evmBytesMatchHash(rawTransaction: string, txHash: string): boolean {
  if (!HEX_BYTES.test(rawTransaction)) return false;
  return keccak256(rawTransaction) === txHash.toLowerCase();
}

/** Stored bytes that are EVM transactions (0x hex; TRON's are JSON text). */
export function isEvmBytes(rawTransaction: string): boolean {
  return rawTransaction.startsWith('0x');
}

/**
 * Signed bytes that are not the transaction of their hash (a signing bug). Typed so that the
 * tracker holds back only the payout it signed for (review r9a, N6): a plain error aborted the
 * network's whole tick, every tick, and no payout of the network was decided any more.
 */
export class StoredHashMismatch extends Error {
  constructor(readonly txHash: string) {
    super(
      `Signed transaction bytes do not hash to ${txHash}: not stored (a signing bug; nothing is sent).`,
    );
    this.name = 'StoredHashMismatch';
  }
}

/**
 * Refuses to store a signed EVM transaction under a hash that is not its own (a signing bug):
 * thrown inside the transaction that would journal it, so nothing of it is stored or sent.
 */
export function assertStoredHash(rawTransaction: string, txHash: string): void {
  if (isEvmBytes(rawTransaction) && !evmBytesMatchHash(rawTransaction, txHash)) {
    throw new StoredHashMismatch(txHash);
  }
}
