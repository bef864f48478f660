import { inspect } from 'node:util';

const REDACTED = '[hot wallet key]';

/**
 * A hot wallet's private key with its address. The key is readable only through `privateKey()`,
 * so logging, JSON-encoding or inspecting the object never prints it.
 */
export class HotWalletKey {
  readonly #privateKey: string;

  constructor(
    readonly network: string,
    readonly address: string,
    privateKey: string,
  ) {
    this.#privateKey = privateKey;
  }

  privateKey(): string {
    return this.#privateKey;
  }

  toJSON(): { network: string; address: string } {
    return { network: this.network, address: this.address };
  }

  toString(): string {
    return `${REDACTED} ${this.network} ${this.address}`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
