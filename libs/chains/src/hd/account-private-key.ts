import { inspect } from 'node:util';
import { BIP32Interface } from 'bip32';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { bip32, EVM_ACCOUNT_PATH, TRON_ACCOUNT_PATH } from './derivation';
import { ChainFamily } from '../networks/network.types';

const ACCOUNT_DEPTH = 3;
const EXTERNAL_CHAIN = 0;
const ACCOUNT_PATHS: Record<ChainFamily, string> = {
  EVM: EVM_ACCOUNT_PATH,
  TRON: TRON_ACCOUNT_PATH,
};

/**
 * The private side of a deposit account (m/44'/60'/0' or m/44'/195'/0'): only the sweeping worker
 * holds one. The key material is kept in a private field, so logging or serializing the object
 * never prints it; errors never repeat it.
 */
export class AccountPrivateKey {
  readonly #node: BIP32Interface;
  /** The matching xpub: must equal the one the API derives pay addresses from. */
  readonly xpub: string;

  private constructor(node: BIP32Interface) {
    this.#node = node.derive(EXTERNAL_CHAIN);
    this.xpub = node.neutered().toBase58();
  }

  static fromXprv(xprv: string): AccountPrivateKey {
    let node: BIP32Interface;
    try {
      node = bip32.fromBase58(xprv);
    } catch {
      throw new Error('Not a valid BIP-32 extended private key (xprv...).');
    }
    if (node.isNeutered()) throw new Error('Expected an extended private key, got a public one.');
    if (node.depth !== ACCOUNT_DEPTH) {
      throw new Error(
        `Expected an account-level key (depth ${ACCOUNT_DEPTH}), got depth ${node.depth}.`,
      );
    }
    return new AccountPrivateKey(node);
  }

  /** Sandbox development wallets keep a mnemonic; the account is derived from it. */
  static fromMnemonic(phrase: string, family: ChainFamily): AccountPrivateKey {
    const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(phrase).computeSeed());
    return AccountPrivateKey.fromXprv(root.derivePath(ACCOUNT_PATHS[family]).extendedKey);
  }

  /** 64 hex digits (no 0x) of the pay address at `index` of the external chain. */
  privateKeyAt(index: number): string {
    const key = this.#node.derive(index).privateKey;
    if (!key) throw new Error('The account key has no private key.');
    return Buffer.from(key).toString('hex');
  }

  toJSON(): { xpub: string } {
    return { xpub: this.xpub };
  }

  toString(): string {
    return `[deposit account key] ${this.xpub.slice(0, 12)}…`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
