import { Inject, Injectable } from '@nestjs/common';
import { NETWORK_NAMES, NetworkConfig, NetworkName, NetworkRegistry } from '@app/chains';
import { APP_CONFIG, ApiException, AppConfig } from '@app/common';
import { blockTimeMs } from '../poll-interval';
import { NetworkStatusDto } from './dto/network-status.dto';
import { toNetworkStatusDto } from './network-status.mapper';
import { watchedNetworks } from './watched-networks';
import { watcherHealth } from './watcher-health';
import { WatcherStatusRepository, WatcherStatusSnapshot } from './watcher-status.repository';

/**
 * The networks of this deployment with the deposit watcher's health on each. The same answer for
 * every merchant: the registry is the environment's (testnets in the sandbox, mainnets in
 * production) and an API key only works in its own environment.
 */
@Injectable()
export class NetworksStatusService {
  private readonly watched: Set<NetworkName>;

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly statuses: WatcherStatusRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.watched = watchedNetworks(config);
  }

  async list(): Promise<NetworkStatusDto[]> {
    const snapshot = await this.statuses.findAll();
    return this.networks.list().map((network) => this.toDto(network, snapshot));
  }

  async get(name: string): Promise<NetworkStatusDto> {
    if (!(NETWORK_NAMES as readonly string[]).includes(name)) {
      throw ApiException.notFound('network', name, 'name');
    }
    const snapshot = await this.statuses.findAll();
    return this.toDto(this.networks.get(name as NetworkName), snapshot);
  }

  private toDto(network: NetworkConfig, snapshot: WatcherStatusSnapshot): NetworkStatusDto {
    const status = snapshot.statuses.get(network.name) ?? null;
    const watched = this.watched.has(network.name);
    const health = watcherHealth({
      watched,
      status,
      confirmations: network.confirmations,
      blockTimeMs: blockTimeMs(network),
      nowMs: snapshot.nowMs,
    });
    return toNetworkStatusDto(network, {
      livemode: this.config.livemode,
      watched,
      status,
      health,
    });
  }
}
