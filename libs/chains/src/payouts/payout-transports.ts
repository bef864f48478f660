import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { NetworkRegistry } from '../networks/network-registry';
import { NetworkName } from '../networks/network.types';
import { PerNetwork } from '../networks/per-network';
import { EthersPayoutTransport } from './evm-payout-transport';
import { PostgresNonceProofs } from './nonce-proofs';
import { PayoutTransport } from './payout-transport';
import { TronNodePayoutTransport } from './tron-payout-transport';

/**
 * One payout transport per network, created on first use and closed with the module. With the
 * database (every process but a unit test's), EVM proofs of nonce consumers are stored there.
 */
@Injectable()
export class PayoutTransports implements OnModuleDestroy {
  private readonly transports: PerNetwork<PayoutTransport>;

  constructor(
    networks: NetworkRegistry,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() dataSource?: DataSource,
  ) {
    const proofs = dataSource ? new PostgresNonceProofs(dataSource) : undefined;
    this.transports = new PerNetwork((name) => {
      const network = networks.get(name);
      return network.chainFamily === 'TRON'
        ? new TronNodePayoutTransport(network, { apiKey: config.trongridApiKey })
        : new EthersPayoutTransport(network, { proofs });
    });
  }

  /** Narrow with `family` ('EVM' | 'TRON') for the family's own methods. */
  transportFor(name: NetworkName): PayoutTransport {
    return this.transports.get(name);
  }

  async onModuleDestroy(): Promise<void> {
    await this.transports.closeAll();
  }
}
