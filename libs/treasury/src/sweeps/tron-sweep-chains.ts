import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  NetworkName,
  NetworkRegistry,
  PayoutTransports,
  TronNodePayoutTransport,
} from '@app/chains';
import { SweepKeys } from './sweep-keys';
import { TronSweepChain } from './tron-sweep-chain';

/**
 * One TronSweepChain per TRON network, whose deposit-key transfers may go only to the network's
 * hot wallet and treasury as configured now (made again when either changes).
 */
@Injectable()
export class TronSweepChains {
  private readonly chains = new Map<NetworkName, { destinations: string; chain: TronSweepChain }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly transports: PayoutTransports,
    private readonly keys: SweepKeys,
  ) {}

  async hotWallet(network: NetworkName): Promise<string | null> {
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT address FROM hot_wallets WHERE network = $1`,
      [network],
    );
    return rows[0]?.address ?? null;
  }

  /** Null while the network has no hot wallet registered: nowhere to sweep to. */
  async chainFor(name: NetworkName): Promise<TronSweepChain | null> {
    const hot = await this.hotWallet(name);
    if (!hot) return null;
    const treasury = this.keys.settings.get(name)?.treasuryAddress;
    const destinations = [hot, ...(treasury ? [treasury] : [])];
    const key = destinations.join(',');
    const known = this.chains.get(name);
    if (known?.destinations === key) return known.chain;
    const chain = new TronSweepChain(
      this.networks.get(name),
      this.transports.transportFor(name) as TronNodePayoutTransport,
      this.config.trongridApiKey,
      destinations,
    );
    this.chains.set(name, { destinations: key, chain });
    return chain;
  }
}
