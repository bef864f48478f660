import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/common';
import { NetworkRegistry } from '../networks/network-registry';
import { NetworkName } from '../networks/network.types';
import { ChainAdapter } from './chain-adapter';
import { EvmChainAdapter } from './evm/evm-chain-adapter';
import { TronChainAdapter } from './tron/tron-chain-adapter';

/** One adapter per network, created on first use and closed with the module. */
@Injectable()
export class ChainAdapters implements OnModuleDestroy {
  private readonly adapters = new Map<NetworkName, ChainAdapter>();

  constructor(
    private readonly networks: NetworkRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  adapterFor(name: NetworkName): ChainAdapter {
    const existing = this.adapters.get(name);
    if (existing) return existing;
    const network = this.networks.get(name);
    const adapter: ChainAdapter =
      network.chainFamily === 'TRON'
        ? new TronChainAdapter(network, { apiKey: this.config.trongridApiKey })
        : new EvmChainAdapter(network);
    this.adapters.set(name, adapter);
    return adapter;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.adapters.values()].map((adapter) => adapter.close()));
    this.adapters.clear();
  }
}
