import type { Response } from 'express';
import { IDEMPOTENT_REPLAYED_HEADER, IdempotentResult } from './idempotency.types';

/** Sends an idempotent result as the controller's response: its stored status and replay marker. */
export function respondIdempotent<T>(response: Response, result: IdempotentResult<T>): T {
  if (result.replayed) response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  response.status(result.response.status);
  return result.response.body;
}
