import { NETWORK_NAMES, NetworkName } from '@app/chains';
import { AppConfig } from '@app/common';

/**
 * The networks the worker watches, read from WATCH_NETWORKS the way the worker's deposit loops
 * read it ('all' is every network of the registry). The API and the worker share their
 * configuration; a name the worker would refuse (it does not start) is simply not watched here.
 */
export function watchedNetworks(config: Pick<AppConfig, 'watchNetworks'>): Set<NetworkName> {
  if (config.watchNetworks === 'all') return new Set(NETWORK_NAMES);
  return new Set(NETWORK_NAMES.filter((name) => (config.watchNetworks as string[]).includes(name)));
}
