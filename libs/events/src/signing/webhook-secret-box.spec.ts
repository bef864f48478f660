import { newWebhookSecret } from './webhook-signature';
import { SEALED_SECRET_PREFIX, WebhookSecretBox } from './webhook-secret-box';

const KEY = Buffer.alloc(32, 7);
const box = new WebhookSecretBox(KEY);

describe('WebhookSecretBox', () => {
  it('seals a secret so that only this key opens it, for this endpoint', () => {
    const secret = newWebhookSecret();
    const sealed = box.seal(secret, 'we_1');
    expect(sealed.startsWith(SEALED_SECRET_PREFIX)).toBe(true);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(box.open(sealed, 'we_1')).toBe(secret);
    // A fresh iv every time: equal secrets do not look equal.
    expect(box.seal(secret, 'we_1')).not.toBe(sealed);
  });

  it('refuses another key, another endpoint and an altered value, never naming the secret', () => {
    const secret = newWebhookSecret();
    const sealed = box.seal(secret, 'we_1');
    const other = new WebhookSecretBox(Buffer.alloc(32, 8));
    expect(() => other.open(sealed, 'we_1')).toThrow(/does not open with WEBHOOK_SECRETS_KEY/);
    expect(() => box.open(sealed, 'we_2')).toThrow(/does not open/);
    const bytes = Buffer.from(sealed.slice(SEALED_SECRET_PREFIX.length), 'base64');
    bytes[bytes.length - 1] ^= 1;
    const altered = SEALED_SECRET_PREFIX + bytes.toString('base64');
    expect(() => box.open(altered, 'we_1')).toThrow(/does not open/);
    expect(() => box.open('v1:AAAA', 'we_1')).toThrow(/truncated/);
    expect(() => box.open('garbage', 'we_1')).toThrow(/no known format/);
    for (const attempt of [() => other.open(sealed, 'we_1'), () => box.open('garbage', 'we_1')]) {
      expect(attempt).not.toThrow(secret);
    }
  });

  it('uses a plain whsec_ value of the previous release as it is', () => {
    const secret = newWebhookSecret();
    expect(box.open(secret, 'we_1')).toBe(secret);
  });

  it('wants a 32-byte key', () => {
    expect(() => new WebhookSecretBox(Buffer.alloc(16))).toThrow('32 bytes');
  });
});
