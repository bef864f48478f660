import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/common';
import { CHAIN_FAMILIES, ChainFamily } from '../networks/network.types';
import { assertAccountKey, deriveAddress, keyFingerprint } from './derivation';
import { AccountKeys, loadOrCreateDevelopmentKeys } from './development-keys';

export interface HdAccount {
  /** Account-level extended public key (m/44'/60'/0' or m/44'/195'/0'). */
  xpub: string;
  /** First 16 hex characters of sha256(xpub): safe to store and log. */
  fingerprint: string;
}

const VARIABLE_OF_FAMILY: Record<ChainFamily, string> = {
  EVM: 'HD_EVM_XPUB',
  TRON: 'HD_TRON_XPUB',
};

/** Derives pay addresses from the configured account xpubs; never holds a private key. */
@Injectable()
export class HdWallet {
  private readonly logger = new Logger(HdWallet.name);
  private readonly accounts: Record<ChainFamily, HdAccount>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const keys = this.resolveKeys(config);
    this.accounts = {
      EVM: { xpub: keys.evmXpub, fingerprint: keyFingerprint(keys.evmXpub) },
      TRON: { xpub: keys.tronXpub, fingerprint: keyFingerprint(keys.tronXpub) },
    };
  }

  accountFor(family: ChainFamily): HdAccount {
    return this.accounts[family];
  }

  derive(family: ChainFamily, index: number): string {
    return deriveAddress(family, this.accounts[family].xpub, index);
  }

  private resolveKeys(config: AppConfig): AccountKeys {
    const configured: Record<ChainFamily, string | undefined> = {
      EVM: config.hdEvmXpub || undefined,
      TRON: config.hdTronXpub || undefined,
    };
    for (const family of CHAIN_FAMILIES) {
      const xpub = configured[family];
      if (xpub) checkConfiguredKey(family, xpub);
    }
    const missing = CHAIN_FAMILIES.filter((family) => !configured[family]);
    if (configured.EVM && configured.TRON) {
      return { evmXpub: configured.EVM, tronXpub: configured.TRON };
    }
    const variables = missing.map((family) => VARIABLE_OF_FAMILY[family]).join(' and ');
    if (config.env !== 'sandbox') {
      throw new Error(`${variables} must be set when APP_ENV=${config.env}.`);
    }
    const development = loadOrCreateDevelopmentKeys(config.devSecretsDir);
    this.logger.warn(
      `${variables} not set: deriving ${missing.join(' and ')} pay addresses from the ` +
        `DEVELOPMENT wallet ${development.file} (${development.created ? 'created now' : 'reused'}). ` +
        'Sandbox only: never send real funds to these addresses.',
    );
    return {
      evmXpub: configured.EVM ?? development.keys.evmXpub,
      tronXpub: configured.TRON ?? development.keys.tronXpub,
    };
  }
}

function checkConfiguredKey(family: ChainFamily, xpub: string): void {
  try {
    assertAccountKey(xpub);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${VARIABLE_OF_FAMILY[family]} is not usable: ${reason}`);
  }
}
