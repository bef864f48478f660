import { createHash } from 'node:crypto';
import { randomBase62 } from '@app/common';

export const LIVE_KEY_PREFIX = 'sk_live_';
export const TEST_KEY_PREFIX = 'sk_test_';
const KEY_SHAPE = /^sk_(test|live)_[0-9A-Za-z]{32,64}$/;

export function keyPrefixFor(livemode: boolean): string {
  return livemode ? LIVE_KEY_PREFIX : TEST_KEY_PREFIX;
}

/** A new secret key: prefix + 43 random base62 characters (256 bits). */
export function generateApiKey(livemode: boolean): string {
  return keyPrefixFor(livemode) + randomBase62(43);
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function hasApiKeyShape(key: string): boolean {
  return KEY_SHAPE.test(key);
}

export function isLiveKey(key: string): boolean {
  return key.startsWith(LIVE_KEY_PREFIX);
}

export function keyHint(key: string): string {
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}
