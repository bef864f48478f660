import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/openapi';

/** What a webhook delivers: the event, as `GET /v1/events/{id}` returns it. */
export type WebhookEvent = components['schemas']['Event'];
export type EventType = WebhookEvent['type'];

export { WebhookVerificationError };

type HeaderSource =
  Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`; timestamps more than 5 minutes away are refused) against the endpoint's
 * `whsec_` secret, and returns the event. Pass the raw body exactly as received (a re-serialized
 * JSON object does not verify). During a secret rotation pass both secrets. Throws
 * WebhookVerificationError when no secret verifies.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string | string[],
): WebhookEvent {
  const payload = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = signatureHeaders(headers);
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw new Error('verifyWebhook needs the endpoint secret');
  let failure: unknown;
  for (const candidate of secrets) {
    try {
      return new Webhook(candidate).verify(payload, signed) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

function signatureHeaders(headers: HeaderSource): Record<string, string> {
  const read = (name: string): string => {
    if (typeof (headers as Headers).get === 'function') {
      return (headers as Headers).get(name) ?? '';
    }
    const record = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, read(name)]));
}
