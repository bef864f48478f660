import { Currency, NetworkConfig, TokenConfig } from '@app/chains';

export interface WatchedToken extends TokenConfig {
  currency: Currency;
}

/** The network's tokens keyed by contract, as the adapter reports contracts. */
export function tokensByContract(network: NetworkConfig): Map<string, WatchedToken> {
  const index = new Map<string, WatchedToken>();
  for (const [currency, token] of Object.entries(network.tokens)) {
    if (token) index.set(token.contract, { ...token, currency: currency as Currency });
  }
  return index;
}
