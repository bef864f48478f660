import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  newWebhookSecret,
  signWebhook,
  WEBHOOK_SECRET_PREFIX,
  webhookSecretBytes,
} from './webhook-signature';

const body = JSON.stringify({ id: 'evt_1', type: 'checkout.session.completed', amount: '12.50' });
const now = () => Math.floor(Date.now() / 1000);

/**
 * Verifies x-signature with node:crypto alone (the example in docs/events-and-webhooks.md): recompute the HMAC of
 * "<t>.<raw body>" with the secret's key, compare in constant time, refuse stale timestamps.
 */
function verifyXSignature(header: string, rawBody: string, secret: string): boolean {
  const fields = header.split(',').map((field) => field.split('='));
  const timestamp = Number(fields.find(([name]) => name === 't')?.[1]);
  if (!(Math.abs(Date.now() / 1000 - timestamp) <= 300)) return false;

  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest();
  return fields.some(([name, value]) => {
    const signature = Buffer.from(value ?? '', 'hex');
    return (
      name === 'v1' && signature.length === expected.length && timingSafeEqual(signature, expected)
    );
  });
}

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);
    expect(webhookSecretBytes(secret)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });
});

describe('webhookSecretBytes', () => {
  it('decodes the base64 after the prefix', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    expect(webhookSecretBytes(`whsec_${key.toString('base64')}`).equals(key)).toBe(true);
  });

  it.each(['', 'whsec_', 'sk_live_abc', Buffer.alloc(32).toString('base64')])(
    'refuses %j',
    (secret) => {
      expect(() => webhookSecretBytes(secret)).toThrow(/webhook secret/);
    },
  );
});

describe('signWebhook', () => {
  const current = newWebhookSecret();
  const previous = newWebhookSecret();

  it('returns the Standard Webhooks headers and x-signature', () => {
    const headers = signWebhook({
      messageId: 'evt_1',
      timestamp: 1700000000,
      body,
      secrets: [current],
    });
    expect(Object.keys(headers).sort()).toEqual([
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-signature',
    ]);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['x-signature']).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  it('matches the signature the official library computes', () => {
    const timestamp = now();
    const headers = signWebhook({ messageId: 'evt_1', timestamp, body, secrets: [current] });
    const official = new Webhook(current).sign('evt_1', new Date(timestamp * 1000), body);
    expect(headers['webhook-signature']).toBe(official);
  });

  it('verifies with the official standardwebhooks library', () => {
    const headers = signWebhook({ messageId: 'evt_1', timestamp: now(), body, secrets: [current] });
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('during a rotation signs with both secrets, and each one alone verifies', () => {
    const headers = signWebhook({
      messageId: 'evt_1',
      timestamp: now(),
      body,
      secrets: [current, previous],
    });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['x-signature'].split(',')).toHaveLength(3);

    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(verifyXSignature(headers['x-signature'], body, secret)).toBe(true);
    }
    const stranger = newWebhookSecret();
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
    expect(verifyXSignature(headers['x-signature'], body, stranger)).toBe(false);
  });

  it('fails verification when the body, id or timestamp is tampered with', () => {
    const timestamp = now();
    const headers = signWebhook({ messageId: 'evt_1', timestamp, body, secrets: [current] });
    const tamperedBody = body.replace('12.50', '1250.00');
    const webhook = new Webhook(current);

    expect(() => webhook.verify(tamperedBody, headers)).toThrow();
    expect(() => webhook.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() =>
      webhook.verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) }),
    ).toThrow();
    expect(verifyXSignature(headers['x-signature'], tamperedBody, current)).toBe(false);
    const shifted = headers['x-signature'].replace(`t=${timestamp}`, `t=${timestamp - 1}`);
    expect(verifyXSignature(shifted, body, current)).toBe(false);
  });

  it('verifies x-signature with node:crypto alone', () => {
    const headers = signWebhook({ messageId: 'evt_1', timestamp: now(), body, secrets: [current] });
    expect(verifyXSignature(headers['x-signature'], body, current)).toBe(true);
  });

  it('is refused by verifiers once the timestamp is stale', () => {
    const stale = now() - 3600;
    const headers = signWebhook({ messageId: 'evt_1', timestamp: stale, body, secrets: [current] });
    expect(() => new Webhook(current).verify(body, headers)).toThrow();
    expect(verifyXSignature(headers['x-signature'], body, current)).toBe(false);
  });

  it('signs the exact bytes of a non-ASCII body', () => {
    const unicode = JSON.stringify({ note: 'café ✓ 🚀' });
    const headers = signWebhook({
      messageId: 'evt_u',
      timestamp: now(),
      body: unicode,
      secrets: [current],
    });
    expect(new Webhook(current).verify(unicode, headers)).toEqual(JSON.parse(unicode));
    expect(verifyXSignature(headers['x-signature'], unicode, current)).toBe(true);
  });

  it('refuses to sign without a secret', () => {
    expect(() =>
      signWebhook({ messageId: 'evt_1', timestamp: now(), body, secrets: [] }),
    ).toThrow();
  });
});
