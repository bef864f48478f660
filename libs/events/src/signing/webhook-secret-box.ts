import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from './webhook-signature';

/** Prefix of a secret sealed with format 1: AES-256-GCM, base64 of iv (12) + tag (16) + ciphertext. */
export const SEALED_SECRET_PREFIX = 'v1:';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Webhook signing secrets as stored in webhook_endpoints: sealed with AES-256-GCM under the
 * WEBHOOK_SECRETS_KEY, so a copy of the database (a backup, a replica, a read through SQL
 * injection) does not let anyone sign webhooks that merchants would trust. HMAC needs the secret
 * itself, so it is encrypted, not hashed. The endpoint's id is the additional authenticated data:
 * a sealed secret copied onto another endpoint's row does not open there.
 */
export class WebhookSecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secrets key must be 32 bytes');
  }

  seal(secret: string, endpointId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return (
      SEALED_SECRET_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')
    );
  }

  /**
   * The secret of a stored value. A plain `whsec_` value is one the previous release wrote (rows
   * created during a rolling deploy, after the migration sealed the others): it is used as it is.
   * Throws, without the value, when the value was not sealed by this key for this endpoint.
   */
  open(stored: string, endpointId: string): string {
    if (stored.startsWith(WEBHOOK_SECRET_PREFIX)) return stored;
    if (!stored.startsWith(SEALED_SECRET_PREFIX)) {
      throw new Error(`webhook secret of ${endpointId} is in no known format`);
    }
    const sealed = Buffer.from(stored.slice(SEALED_SECRET_PREFIX.length), 'base64');
    if (sealed.length <= IV_BYTES + TAG_BYTES) {
      throw new Error(`webhook secret of ${endpointId} is truncated`);
    }
    const decipher = createDecipheriv(ALGORITHM, this.key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(endpointId, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      // Node's own message names nothing useful; this one names the endpoint, never the value.
      throw new Error(
        `webhook secret of ${endpointId} does not open with WEBHOOK_SECRETS_KEY (another key, or altered)`,
      );
    }
  }
}
