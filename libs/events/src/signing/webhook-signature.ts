import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

// Standard Webhooks accepts secrets of 24 to 64 bytes; 32 matches the HMAC-SHA256 block strength.
const SECRET_BYTES = 32;

export interface WebhookSigningInput {
  messageId: string;
  /** Unix seconds. */
  timestamp: number;
  body: string;
  /** The current secret first; during a rotation's grace period also the previous one. */
  secrets: string[];
}

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key: the base64 part after `whsec_`, as Standard Webhooks libraries decode it. */
export function webhookSecretBytes(secret: string): Buffer {
  // Signing with a mangled secret would fail every verification silently: fail loudly instead.
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new Error(`webhook secret must start with ${WEBHOOK_SECRET_PREFIX}`);
  }
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('webhook secret has no key after its prefix');
  return key;
}

/**
 * Signature headers in two formats, each carrying one signature per secret so receivers keep
 * verifying while they switch to a rotated secret:
 * - Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), verified by its
 *   official libraries;
 * - x-signature, Stripe-style `t=<timestamp>,v1=<hex>[,v1=<hex>]`, for hand-written verifiers.
 */
export function signWebhook(input: WebhookSigningInput): Record<string, string> {
  const { messageId, timestamp, body, secrets } = input;
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  const keys = secrets.map(webhookSecretBytes);
  const standard = keys.map(
    (key) => `v1,${hmac(key, `${messageId}.${timestamp}.${body}`, 'base64')}`,
  );
  const stripeStyle = keys.map((key) => `v1=${hmac(key, `${timestamp}.${body}`, 'hex')}`);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.join(' '),
    'x-signature': [`t=${timestamp}`, ...stripeStyle].join(','),
  };
}

function hmac(key: Buffer, content: string, encoding: 'base64' | 'hex'): string {
  return createHmac('sha256', key).update(content, 'utf8').digest(encoding);
}
