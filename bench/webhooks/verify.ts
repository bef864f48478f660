import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import type { SignedSample } from './receiver';

/** Checks that do not belong to one phase: signatures, and errors the service logged. */

export interface SignatureCheck {
  checked: number;
  failures: string[];
}

/** Each sample verified with the official Standard Webhooks library and its endpoint's secret. */
export function verifySignatures(
  samples: SignedSample[],
  secretOf: Map<string, string>,
): SignatureCheck {
  const failures: string[] = [];
  for (const sample of samples) {
    const secret = secretOf.get(sample.endpoint);
    try {
      if (!secret) throw new Error('no secret for this endpoint');
      new Webhook(secret).verify(sample.body, sample.headers);
    } catch (error) {
      failures.push(`${sample.endpoint} ${sample.headers['webhook-id']}: ${String(error)}`);
    }
  }
  return { checked: samples.length, failures };
}

export interface LoggedErrors {
  count: number;
  /** The first few, shortened. */
  first: string[];
}

const ERROR_LEVEL = 50; // pino: 50 error, 60 fatal
const KEPT = 3;

/** Lines at level error or fatal in a process's JSON log (anything else it printed is ignored). */
export function loggedErrors(logFile: string): LoggedErrors {
  const first: string[] = [];
  let count = 0;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    let level: unknown;
    try {
      level = (JSON.parse(line) as { level?: unknown }).level;
    } catch {
      continue;
    }
    if (typeof level !== 'number' || level < ERROR_LEVEL) continue;
    count++;
    if (first.length < KEPT) first.push(line.slice(0, 300));
  }
  return { count, first };
}
