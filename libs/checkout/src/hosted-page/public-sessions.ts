import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { APP_CONFIG, AppConfig, formatAmount } from '@app/common';
import { Currency, NetworkConfig, NetworkName, NetworkRegistry } from '@app/chains';
import { blockTimeMs } from '@app/deposits/poll-interval';
import { watchedNetworks } from '@app/deposits/networks-status/watched-networks';
import {
  DetectionState,
  detectionStateOf,
  watcherHealth,
} from '@app/deposits/networks-status/watcher-health';
import { watcherStatusFromJson } from '@app/deposits/networks-status/watcher-status.repository';
import { paymentUri } from './payment-uri';
import { PublicSessionView } from './public-session-view';
import { PublicSessionRecord, PublicSessionsRepository } from './public-sessions.repository';

const SESSION_ID = /^cs_[0-9A-Za-z]{22}$/;

/** The public view of a session that the hosted page reads (by id alone: ids are unguessable). */
@Injectable()
export class PublicSessions {
  private readonly watched: Set<NetworkName>;

  constructor(
    private readonly sessions: PublicSessionsRepository,
    private readonly networks: NetworkRegistry,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.watched = watchedNetworks(config);
  }

  async find(id: string): Promise<PublicSessionView | null> {
    if (!SESSION_ID.test(id)) return null;
    const row = await this.sessions.find(id);
    return row && this.toView(row);
  }

  private toView(row: PublicSessionRecord): PublicSessionView {
    const network = this.networks.get(row.network as NetworkName);
    const token = this.networks.token(row.network as NetworkName, row.currency as Currency);
    const required = network.confirmations;
    const scanned = row.scanned_block === null ? null : Number(row.scanned_block);
    const live = row.transactions.filter((transaction) => transaction.status !== 'Reverted');
    const seen = live.reduce((sum, transaction) => sum.plus(transaction.amount), new Decimal(0));
    const due = Decimal.max(new Decimal(row.amount).minus(seen), 0);
    return {
      id: row.id,
      status: row.status,
      amount: formatAmount(row.amount),
      amount_received: formatAmount(row.amount_received),
      amount_seen: formatAmount(seen),
      amount_due: formatAmount(due),
      currency: row.currency,
      network: row.network,
      network_name: network.displayName,
      chain_family: row.chain_family,
      chain_id: network.chainId,
      token_contract: row.currency_contract,
      token_decimals: token?.decimals ?? 0,
      pay_address: row.pay_address,
      payment_uri: paymentUri({
        chainFamily: row.chain_family,
        chainId: network.chainId,
        tokenContract: row.currency_contract,
        tokenDecimals: token?.decimals ?? 0,
        payAddress: row.pay_address,
        amount: formatAmount(due.isZero() ? row.amount : due),
      }),
      pricing: { amount: formatAmount(row.pricing_amount), currency: row.pricing_currency },
      // A sub-merchant's page shows the sub-merchant: the customer is paying it.
      merchant_name: row.sub_merchant_name ?? row.merchant_name,
      merchant_logo_url: row.sub_merchant_logo_url ?? row.merchant_logo_url,
      success_url: row.success_url,
      cancel_url: row.cancel_url,
      expires_at: new Date(row.expires_at).toISOString(),
      server_time: new Date(row.server_time).toISOString(),
      confirmations_required: required,
      detection: this.detectionOf(network, row),
      transactions: row.transactions.map((transaction) => ({
        tx_hash: transaction.tx_hash,
        amount: formatAmount(transaction.amount),
        status: transaction.status,
        confirmations: confirmationsOf(transaction, scanned, required),
      })),
      refund_waiting: row.refund_waiting,
    };
  }

  /** The same health as GET /v1/networks, judged by the database's clock (server_time). */
  private detectionOf(network: NetworkConfig, row: PublicSessionRecord): DetectionState {
    return detectionStateOf(
      watcherHealth({
        watched: this.watched.has(network.name),
        status: row.watcher && watcherStatusFromJson(row.watcher),
        confirmations: network.confirmations,
        blockTimeMs: blockTimeMs(network),
        nowMs: new Date(row.server_time).getTime(),
      }),
    );
  }
}

function confirmationsOf(
  transaction: PublicSessionRecord['transactions'][number],
  scanned: number | null,
  required: number,
): number {
  if (transaction.status === 'Confirmed') return required;
  if (transaction.status === 'Reverted' || scanned === null) return 0;
  return Math.min(Math.max(scanned - Number(transaction.block_number) + 1, 0), required);
}
