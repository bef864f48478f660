import { AppConfig } from '@app/common';

/**
 * The WebAuthn relying party is the deployment itself: its RP ID is PUBLIC_URL's host (no port),
 * and a response is accepted only from PUBLIC_URL's origin exactly (scheme, host and port), the
 * one origin the console is served from.
 */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export function relyingPartyOf(config: Pick<AppConfig, 'publicUrl'>): RelyingParty {
  const url = new URL(config.publicUrl);
  return { id: url.hostname, name: 'Merchant console', origin: url.origin };
}

/** How long a ceremony's challenge may be answered. */
export const PASSKEY_CHALLENGE_MINUTES = 5;

/**
 * COSE algorithms offered and accepted: EdDSA, ES256, RS256 (what authenticators in use sign
 * with). Named rather than the library's default, which probes the runtime for post-quantum
 * algorithms through an experimental Web Crypto call that warns on every process.
 */
export const PASSKEY_ALGORITHMS = [-8, -7, -257];
