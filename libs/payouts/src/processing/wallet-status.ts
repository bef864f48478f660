import { Injectable } from '@nestjs/common';
import { formatUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { ChainError, NetworkName, NetworkRegistry, PayoutTransports } from '@app/chains';
import { HotWallets } from './hot-wallets';

export interface WalletStatusView {
  network: string;
  address: string;
  /** Token balances in whole tokens, per currency; null when the node could not be read. */
  tokens: Record<string, string | null>;
  /** Native coin (ETH, BNB, TRX...) that pays the fees, in whole coins. */
  native: string | null;
  next_nonce: number | null;
  payouts_in_flight: number;
  payouts_waiting: number;
  error: string | null;
}

const NATIVE_DECIMALS = { EVM: 18, TRON: 6 } as const;

/** What an operator needs to keep the hot wallets funded (`npm run cli -- wallets:status`). */
@Injectable()
export class WalletStatus {
  constructor(
    private readonly wallets: HotWallets,
    private readonly networks: NetworkRegistry,
    private readonly transports: PayoutTransports,
    private readonly dataSource: DataSource,
  ) {}

  async all(): Promise<WalletStatusView[]> {
    return Promise.all(
      this.wallets.all().map((key) => this.one(key.network as NetworkName, key.address)),
    );
  }

  private async one(name: NetworkName, address: string): Promise<WalletStatusView> {
    const network = this.networks.get(name);
    const [row]: Array<{ next_nonce: string | null; in_flight: string; waiting: string }> =
      await this.dataSource.query(
        `SELECT (SELECT next_nonce FROM hot_wallets WHERE network = $1) AS next_nonce,
                (SELECT count(*) FROM payouts WHERE network = $1 AND status = 'Processing') AS in_flight,
                (SELECT count(*) FROM payouts WHERE network = $1 AND status = 'Pending') AS waiting`,
        [name],
      );
    const view: WalletStatusView = {
      network: name,
      address,
      tokens: {},
      native: null,
      next_nonce: row.next_nonce === null ? null : Number(row.next_nonce),
      payouts_in_flight: Number(row.in_flight),
      payouts_waiting: Number(row.waiting),
      error: null,
    };
    try {
      const transport = this.transports.transportFor(name);
      for (const [currency, token] of Object.entries(network.tokens)) {
        if (!token) continue;
        const balances = await transport.balances(address, token.contract);
        view.tokens[currency] = formatUnits(balances.token, token.decimals);
        view.native = formatUnits(balances.native, NATIVE_DECIMALS[network.chainFamily]);
      }
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      view.error = error.message;
    }
    return view;
  }
}
