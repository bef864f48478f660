import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { PerNetwork } from '@app/chains/networks/per-network';
import { APP_CONFIG, AppConfig } from '@app/common';
import { ChainBalanceReader } from './balance-reads';
import { EvmMulticallBalances } from './evm-multicall-balances';
import { TronNodeBalances } from './tron-balances';

/** One balance reader per network, created on first use and closed with the module. */
@Injectable()
export class ChainBalanceReaders implements OnModuleDestroy {
  private readonly readers: PerNetwork<ChainBalanceReader>;

  constructor(networks: NetworkRegistry, @Inject(APP_CONFIG) config: AppConfig) {
    this.readers = new PerNetwork((name) => {
      const network = networks.get(name);
      return network.chainFamily === 'TRON'
        ? new TronNodeBalances(network, config.trongridApiKey)
        : new EvmMulticallBalances(network);
    });
  }

  readerFor(name: NetworkName): ChainBalanceReader {
    return this.readers.get(name);
  }

  async onModuleDestroy(): Promise<void> {
    await this.readers.closeAll();
  }
}
