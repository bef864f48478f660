import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'v1:';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * TOTP secrets at rest, sealed as webhook secrets are (AES-256-GCM, docs/events-and-webhooks.md):
 * a copy of the database does not give anyone a second factor. The key is derived from
 * WEBHOOK_SECRETS_KEY with HKDF under its own label, so the deployment manages one key (required
 * in production, a development key in the sandbox) while the two uses never share a cipher key.
 * The user's id is the additional authenticated data: a sealed secret copied onto another user's
 * row does not open there.
 */
export class TotpSecretBox {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the secrets key must be 32 bytes');
    this.key = Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'console totp secrets v1', 32),
    );
  }

  seal(secret: string, userId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    cipher.setAAD(Buffer.from(userId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** Throws, without the value, when it was not sealed by this key for this user. */
  open(stored: string, userId: string): string {
    if (!stored.startsWith(PREFIX))
      throw new Error(`TOTP secret of ${userId} is in no known format`);
    const sealed = Buffer.from(stored.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv(ALGORITHM, this.key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(userId, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new Error(`TOTP secret of ${userId} does not open with the configured key`);
    }
  }
}
