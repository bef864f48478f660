import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/common';
import { NetworkRegistry } from '../networks/network-registry';
import { NetworkName } from '../networks/network.types';
import { PerNetwork } from '../networks/per-network';
import { ChainAdapter } from './chain-adapter';
import { EvmChainAdapter } from './evm/evm-chain-adapter';
import { TronChainAdapter } from './tron/tron-chain-adapter';

/** One adapter per network, created on first use and closed with the module. */
@Injectable()
export class ChainAdapters implements OnModuleDestroy {
  private readonly adapters: PerNetwork<ChainAdapter>;

  constructor(networks: NetworkRegistry, @Inject(APP_CONFIG) config: AppConfig) {
    this.adapters = new PerNetwork((name) => {
      const network = networks.get(name);
      return network.chainFamily === 'TRON'
        ? new TronChainAdapter(network, { apiKey: config.trongridApiKey })
        : new EvmChainAdapter(network);
    });
  }

  adapterFor(name: NetworkName): ChainAdapter {
    return this.adapters.get(name);
  }

  async onModuleDestroy(): Promise<void> {
    await this.adapters.closeAll();
  }
}
