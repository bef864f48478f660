import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/common';
import { HdWallet } from './hd/hd-wallet';
import { loadNetworkRegistry, NetworkRegistry } from './networks/network-registry';

/** Network registry and address derivation; needs APP_CONFIG from the global AppConfigModule. */
@Module({
  providers: [
    {
      provide: NetworkRegistry,
      useFactory: (config: AppConfig) => loadNetworkRegistry(config),
      inject: [APP_CONFIG],
    },
    HdWallet,
  ],
  exports: [NetworkRegistry, HdWallet],
})
export class ChainsModule {}
