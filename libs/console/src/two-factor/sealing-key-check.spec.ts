import { Logger } from '@nestjs/common';
import { AppConfig, DEVELOPMENT_WEBHOOK_SECRETS_KEY } from '@app/common';
import { SealingKeyCheck, sealsWithPublicKeyBeyondLocalhost } from './sealing-key-check';

const DEVELOPMENT_KEY = Buffer.from(DEVELOPMENT_WEBHOOK_SECRETS_KEY, 'hex');
const OWN_KEY = Buffer.from('ab'.repeat(32), 'hex');

const configOf = (publicUrl: string, secretsKey: Buffer) =>
  ({ publicUrl, webhooks: { secretsKey } }) as unknown as AppConfig;

describe('the sealing key check (public sandbox without WEBHOOK_SECRETS_KEY)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('flags the development key on a deployment others can reach', () => {
    expect(
      sealsWithPublicKeyBeyondLocalhost(configOf('https://sandbox.pay.example', DEVELOPMENT_KEY)),
    ).toBe(true);
    expect(
      sealsWithPublicKeyBeyondLocalhost(configOf('https://sandbox.pay.example', OWN_KEY)),
    ).toBe(false);
    for (const local of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
      expect(sealsWithPublicKeyBeyondLocalhost(configOf(local, DEVELOPMENT_KEY))).toBe(false);
    }
  });

  it('warns loudly at startup, and says nothing when a key is set', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    new SealingKeyCheck(configOf('https://sandbox.pay.example', OWN_KEY)).onApplicationBootstrap();
    expect(warn).not.toHaveBeenCalled();
    new SealingKeyCheck(
      configOf('https://sandbox.pay.example', DEVELOPMENT_KEY),
    ).onApplicationBootstrap();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('WEBHOOK_SECRETS_KEY is not set'));
  });
});
