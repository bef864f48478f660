import { TronResponseError } from '../adapters/tron/tron-errors';
import { throwIfNodeError } from '../adapters/tron/tron-responses';
import { decodeTronMessage } from './node-messages';
import { BroadcastResult } from './payout-transport';

// java-tron's Return.response_code, as BroadcastServlet answers: {"result": true, "txid"} or
// {"code", "message" (hex of UTF-8 text), "txid"}.

/** Past its expiration, or its reference block (TAPOS) is not on the node's chain. */
const EXPIRED_CODES = new Set(['TRANSACTION_EXPIRATION_ERROR', 'TAPOS_ERROR']);

/** Refused as it is: bad signature, no bandwidth or TRX for it, a contract that refuses it. */
const REJECTED_CODES = new Set([
  'SIGERROR',
  'CONTRACT_VALIDATE_ERROR',
  'CONTRACT_EXE_ERROR',
  'BANDWITH_ERROR',
  'TOO_BIG_TRANSACTION_ERROR',
  'TOO_BIG_TRANSACTION_RESULT_ERROR',
]);

// Every other code (SERVER_BUSY, NO_CONNECTION, NOT_ENOUGH_EFFECTIVE_CONNECTION,
// BLOCK_UNSOLIDIFIED, OTHER_ERROR, codes added later) says the node did not take the
// transaction now, not that it never will: a transient error, sending the same bytes again is safe.

/**
 * What a /wallet/broadcasttransaction answer says. Throws a transient TronResponseError when the
 * node did not decide (busy, not connected, unknown failure), so the client retries the same bytes.
 */
export function classifyTronBroadcast(value: unknown): BroadcastResult {
  throwIfNodeError(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TronResponseError('malformed response: broadcast answer is not an object');
  }
  const answer = value as { result?: unknown; code?: unknown; message?: unknown };
  if (answer.result === true) return { kind: 'accepted' };
  if (typeof answer.code !== 'string') {
    throw new TronResponseError('malformed response: broadcast answer without result or code');
  }
  const code = answer.code;
  const message = decodeTronMessage(answer.message);
  if (code === 'DUP_TRANSACTION_ERROR') return { kind: 'already_known' };
  if (EXPIRED_CODES.has(code)) return { kind: 'expired' };
  if (REJECTED_CODES.has(code)) {
    return { kind: 'rejected', reason: message ? `${code}: ${message}` : code };
  }
  throw new TronResponseError(
    `broadcast not taken: ${code}${message ? ` (${message})` : ''}`,
    true,
  );
}
