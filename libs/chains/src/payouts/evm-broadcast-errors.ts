import { RATE_LIMIT_PATTERN, readRpcError } from '../adapters/evm/evm-errors';
import { shortReason } from './node-messages';
import { BroadcastResult } from './payout-transport';

/** The JSON-RPC error object a node answered eth_sendRawTransaction with. */
export interface NodeError {
  code: number;
  message: string;
}

/*
 * How execution clients word their answers to eth_sendRawTransaction. Messages, not codes: most
 * clients use -32000 for everything, and some wrap the phrase ("err: nonce too low: address ...").
 */

// geth, erigon, bor, op-geth, nitro "already known"; Nethermind "AlreadyKnown"; Besu "Known
// transaction"; anvil and reth "transaction already imported"; OpenEthereum "Transaction with the
// same hash was already imported."; erigon "INTERNAL_ERROR: existing tx with same hash".
const ALREADY_KNOWN =
  /already ?known|\bknown transaction|already ?imported|existing tx with same hash/i;

// geth and most others "nonce too low"; Besu "Nonce too low"; Nethermind "OldNonce, Current
// nonce: 55, nonce of rejected tx: 54"; OpenEthereum "Transaction nonce is too low."; ethers'
// own wording of it "nonce has already been used".
const NONCE_TOO_LOW = /nonce[ _]?(is )?too[ _]?low|oldnonce|nonce has already been used/i;

// The fees are too low for the node now; a higher bid may be taken. geth "replacement transaction
// underpriced" and "transaction underpriced" (below the pool's minimum); Nethermind "FeeTooLow",
// "FeeTooLowToCompete", "ReplacementNotAllowed"; Besu "Gas price below configured minimum gas
// price"; OpenEthereum "Transaction gas price is too low ..."; nitro "gas price too low"; geth,
// anvil and nitro "max fee per gas less than block base fee".
const UNDERPRICED =
  /underpriced|replacementnotallowed|fee ?too ?low|gas price (is |supplied is )?too low|gas price below|less than block base fee/i;

// Refusals a higher fee does not cure: no funds for gas, a bad gas limit, signature or chain id, a
// transaction the node cannot decode, a nonce gap some clients refuse instead of queueing.
const REFUSED = new RegExp(
  [
    'insufficient ?funds',
    'insufficient balance',
    'not enough funds',
    'upfront cost exceeds',
    'intrinsic gas',
    'gas ?limit',
    'invalid (sender|signature|chain ?id)',
    'chain ?id mismatch',
    'replay-protected',
    'negative value',
    'oversized data',
    'overflow',
    'exceeds the configured cap',
    'fee cap exceeded',
    'priority fee per gas higher than max fee per gas',
    'type not supported',
    'nonce ?too ?high',
    'nonce ?gap',
    'not an eoa',
    'sender ?is ?contract',
    'decode',
    'rlp',
  ].join('|'),
  'i',
);

// EIP-1474 "transaction rejected", and "invalid params" (anvil: "Failed to decode transaction").
const REFUSAL_CODES = new Set([-32003, -32602]);

/**
 * What a node's JSON-RPC error to eth_sendRawTransaction says about the transaction, or null when
 * it says nothing definite (overload, rate limit, a wording we do not know): then the outcome is
 * unknown and the caller treats it like a transport failure.
 */
export function classifyBroadcastError(error: NodeError): BroadcastResult | null {
  const { code, message } = error;
  if (ALREADY_KNOWN.test(message)) return { kind: 'already_known' };
  if (NONCE_TOO_LOW.test(message)) return { kind: 'nonce_too_low' };
  if (UNDERPRICED.test(message)) return { kind: 'underpriced' };
  if (RATE_LIMIT_PATTERN.test(message)) return null;
  if (REFUSED.test(message) || REFUSAL_CODES.has(code)) {
    return { kind: 'rejected', reason: shortReason(message) };
  }
  return null;
}

/**
 * The node's own error inside whatever ethers threw: ethers keeps it in `error` when it could not
 * name it, and in `info.error` when it did (NONCE_EXPIRED, INSUFFICIENT_FUNDS, ...).
 */
export function nodeErrorOf(thrown: unknown): NodeError | undefined {
  if (typeof thrown !== 'object' || thrown === null) return undefined;
  const { error, info } = thrown as { error?: unknown; info?: unknown };
  const nested = typeof info === 'object' && info !== null ? (info as { error?: unknown }) : {};
  return readRpcError(error) ?? readRpcError(nested.error);
}
