import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/common';
import { ChainAdapters } from './adapters/chain-adapters';
import { HdWallet } from './hd/hd-wallet';
import { loadNetworkRegistry, NetworkRegistry } from './networks/network-registry';
import { PayoutTransports } from './payouts/payout-transports';

/**
 * Network registry, address derivation, chain adapters and payout transports; needs APP_CONFIG
 * from the global AppConfigModule.
 */
@Module({
  providers: [
    {
      provide: NetworkRegistry,
      useFactory: (config: AppConfig) => loadNetworkRegistry(config),
      inject: [APP_CONFIG],
    },
    HdWallet,
    ChainAdapters,
    PayoutTransports,
  ],
  exports: [NetworkRegistry, HdWallet, ChainAdapters, PayoutTransports],
})
export class ChainsModule {}
