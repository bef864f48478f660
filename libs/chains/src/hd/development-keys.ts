import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { EVM_ACCOUNT_PATH, TRON_ACCOUNT_PATH } from './derivation';

export const DEVELOPMENT_WALLET_FILE = 'dev-hd-wallet.json';

export interface AccountKeys {
  evmXpub: string;
  tronXpub: string;
}

export interface DevelopmentKeys {
  keys: AccountKeys;
  file: string;
  created: boolean;
}

interface DevelopmentWalletFile extends AccountKeys {
  warning: string;
  mnemonic: string;
}

const OWNER_ONLY_FILE = 0o600;
const OWNER_ONLY_FOLDER = 0o700;

/**
 * Sandbox only: the account xpubs of a development mnemonic kept in `secretsDir`, created on
 * first use. The mnemonic is read to derive the xpubs and then dropped.
 */
export function loadOrCreateDevelopmentKeys(secretsDir: string): DevelopmentKeys {
  const file = join(secretsDir, DEVELOPMENT_WALLET_FILE);
  const existing = readWalletFile(file);
  if (existing) return { keys: existing, file, created: false };

  mkdirSync(secretsDir, { recursive: true, mode: OWNER_ONLY_FOLDER });
  const mnemonic = Mnemonic.fromEntropy(randomBytes(16)).phrase;
  const keys = accountKeysFromMnemonic(mnemonic);
  const content: DevelopmentWalletFile = {
    warning: 'Development wallet of a sandbox deployment. Never send real funds to it.',
    mnemonic,
    ...keys,
  };
  if (createExclusively(file, `${JSON.stringify(content, null, 2)}\n`)) {
    return { keys, file, created: true };
  }
  // Another process (API and worker start together) created it first: use theirs.
  const theirs = readWalletFile(file);
  if (!theirs) throw new Error(`${file} disappeared while it was being created.`);
  return { keys: theirs, file, created: false };
}

export function accountKeysFromMnemonic(phrase: string): AccountKeys {
  const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(phrase).computeSeed());
  return {
    evmXpub: root.derivePath(EVM_ACCOUNT_PATH).neuter().extendedKey,
    tronXpub: root.derivePath(TRON_ACCOUNT_PATH).neuter().extendedKey,
  };
}

function readWalletFile(file: string): AccountKeys | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  const parsed = parseWalletFile(text);
  if (!parsed) throw new Error(`${file} is not a development wallet file; move it away.`);
  // The mnemonic is the source of truth: stale or edited xpubs would derive foreign addresses.
  const keys = accountKeysFromMnemonic(parsed.mnemonic);
  if (keys.evmXpub !== parsed.evmXpub || keys.tronXpub !== parsed.tronXpub) {
    throw new Error(`${file} is inconsistent: its xpubs do not match its mnemonic.`);
  }
  return keys;
}

function parseWalletFile(text: string): DevelopmentWalletFile | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    const { mnemonic, evmXpub, tronXpub } = record;
    if (typeof mnemonic !== 'string' || !Mnemonic.isValidMnemonic(mnemonic)) return undefined;
    if (typeof evmXpub !== 'string' || typeof tronXpub !== 'string') return undefined;
    return { warning: String(record.warning ?? ''), mnemonic, evmXpub, tronXpub };
  } catch {
    return undefined;
  }
}

/** Writes beside the target then hard-links it into place: atomic, and never overwrites. */
function createExclusively(file: string, content: string): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { mode: OWNER_ONLY_FILE, flag: 'wx' });
  try {
    chmodSync(temporary, OWNER_ONLY_FILE); // the umask may have narrowed, never widened, it
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if (isErrorCode(error, 'EEXIST')) return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

// Structural, not instanceof: errors thrown by node:fs may come from another realm (Jest).
function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
