import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { AppConfig, loadAppConfig } from '@app/common';
import {
  deriveEvmAddress,
  deriveTronAddress,
  EVM_ACCOUNT_PATH,
  keyFingerprint,
} from './derivation';
import { accountKeysFromMnemonic, DEVELOPMENT_WALLET_FILE } from './development-keys';
import { HdWallet } from './hd-wallet';

const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const CONFIGURED = accountKeysFromMnemonic(HARDHAT_MNEMONIC);

function configWith(overrides: Partial<AppConfig>): AppConfig {
  return { ...loadAppConfig({}), ...overrides };
}

interface WalletFile {
  mnemonic: string;
  evmXpub: string;
  tronXpub: string;
}

describe('HdWallet', () => {
  let secretsRoot: string;
  let warn: jest.SpyInstance;

  beforeEach(() => {
    secretsRoot = mkdtempSync(join(tmpdir(), 'hd-wallet-'));
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(() => {
    warn.mockRestore();
    rmSync(secretsRoot, { recursive: true, force: true });
  });

  it('uses the configured xpubs and writes nothing', () => {
    const devSecretsDir = join(secretsRoot, 'secrets');
    const wallet = new HdWallet(
      configWith({ hdEvmXpub: CONFIGURED.evmXpub, hdTronXpub: CONFIGURED.tronXpub, devSecretsDir }),
    );
    expect(wallet.accountFor('EVM')).toEqual({
      xpub: CONFIGURED.evmXpub,
      fingerprint: keyFingerprint(CONFIGURED.evmXpub),
    });
    expect(wallet.derive('EVM', 0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(wallet.derive('TRON', 4)).toBe(deriveTronAddress(CONFIGURED.tronXpub, 4));
    expect(existsSync(devSecretsDir)).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });

  it('creates a sandbox development wallet once and reuses it', () => {
    const devSecretsDir = join(secretsRoot, 'nested', 'secrets');
    const file = join(devSecretsDir, DEVELOPMENT_WALLET_FILE);

    const first = new HdWallet(configWith({ devSecretsDir }));
    const written = readFileSync(file, 'utf8');
    const stored = JSON.parse(written) as WalletFile;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Mnemonic.isValidMnemonic(stored.mnemonic)).toBe(true);
    expect(accountKeysFromMnemonic(stored.mnemonic)).toEqual({
      evmXpub: stored.evmXpub,
      tronXpub: stored.tronXpub,
    });
    expect(first.accountFor('EVM').xpub).toBe(stored.evmXpub);
    expect(first.accountFor('TRON').xpub).toBe(stored.tronXpub);
    const fromMnemonic = HDNodeWallet.fromPhrase(stored.mnemonic, '', `${EVM_ACCOUNT_PATH}/0/2`);
    expect(first.derive('EVM', 2)).toBe(fromMnemonic.address);

    const second = new HdWallet(configWith({ devSecretsDir }));
    expect(second.accountFor('EVM')).toEqual(first.accountFor('EVM'));
    expect(second.accountFor('TRON')).toEqual(first.accountFor('TRON'));
    expect(readFileSync(file, 'utf8')).toBe(written);

    expect(warn).toHaveBeenCalledTimes(2);
    const messages = warn.mock.calls.map(([message]) => String(message)).join('\n');
    expect(messages).toMatch(/created now[\s\S]*reused/);
    expect(messages).toContain('HD_EVM_XPUB and HD_TRON_XPUB');
    for (const secret of [stored.mnemonic, stored.evmXpub, stored.tronXpub]) {
      expect(messages).not.toContain(secret);
    }
  });

  it('fills only the missing key from the development wallet', () => {
    const devSecretsDir = join(secretsRoot, 'secrets');
    const wallet = new HdWallet(configWith({ hdEvmXpub: CONFIGURED.evmXpub, devSecretsDir }));
    const stored = JSON.parse(
      readFileSync(join(devSecretsDir, DEVELOPMENT_WALLET_FILE), 'utf8'),
    ) as WalletFile;
    expect(wallet.accountFor('EVM').xpub).toBe(CONFIGURED.evmXpub);
    expect(wallet.accountFor('TRON').xpub).toBe(stored.tronXpub);
    expect(String(warn.mock.calls[0][0])).toMatch(/^HD_TRON_XPUB not set/);
  });

  it('refuses a development wallet whose xpubs do not match its mnemonic', () => {
    const devSecretsDir = join(secretsRoot, 'secrets');
    new HdWallet(configWith({ devSecretsDir }));
    const file = join(devSecretsDir, DEVELOPMENT_WALLET_FILE);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as WalletFile;
    writeFileSync(file, JSON.stringify({ ...stored, evmXpub: CONFIGURED.evmXpub }));
    expect(() => new HdWallet(configWith({ devSecretsDir }))).toThrow('inconsistent');
  });

  it('requires both keys in production, naming the variables', () => {
    const devSecretsDir = join(secretsRoot, 'secrets');
    const production = { env: 'production' as const, livemode: true, devSecretsDir };
    expect(() => new HdWallet(configWith(production))).toThrow(
      'HD_EVM_XPUB and HD_TRON_XPUB must be set',
    );
    expect(
      () => new HdWallet(configWith({ ...production, hdEvmXpub: CONFIGURED.evmXpub })),
    ).toThrow(/^HD_TRON_XPUB must be set when APP_ENV=production/);
    expect(existsSync(devSecretsDir)).toBe(false);
  });

  it('refuses a configured key that is not an account-level xpub', () => {
    const rootXpub = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, '', 'm').neuter().extendedKey;
    expect(
      () => new HdWallet(configWith({ hdEvmXpub: rootXpub, hdTronXpub: CONFIGURED.tronXpub })),
    ).toThrow(/^HD_EVM_XPUB is not usable: .*depth 0/);
  });

  it('derives what the derivation functions derive', () => {
    const wallet = new HdWallet(
      configWith({ hdEvmXpub: CONFIGURED.evmXpub, hdTronXpub: CONFIGURED.tronXpub }),
    );
    expect(wallet.derive('EVM', 123)).toBe(deriveEvmAddress(CONFIGURED.evmXpub, 123));
  });
});
