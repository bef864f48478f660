import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, APP_CONFIG, AppConfig, ErrorCode, formatAmount } from '@app/common';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { PayoutQueue } from '@app/payouts';
import { PayoutDestination } from '@app/payouts/rules/payout-destination';
import { RefundDestinationLinks } from './refund-destination-links';
import { RefundEvents } from './refund-events';
import { RefundPayouts } from './refund-payouts';
import { RefundRecord } from './refund.types';
import { RefundsRepository } from './refunds.repository';

/** What the hosted page shows the customer once the address is taken. */
export interface RefundDestinationAccepted {
  id: string;
  status: string;
  to_address: string;
  /** Not sent before this (ISO 8601); null: sent at once. */
  send_after: string | null;
}

/**
 * What the page's script learns when its link's secret is right: the form may be shown, for this
 * refund. The amounts come only with the secret: the page itself names no refund.
 */
export interface RefundFormAccess {
  id: string;
  amount: string;
  fee: string;
  /** What reaches the customer: amount less the network's fee. */
  net_amount: string;
  /** The form is refused from this time on (ISO 8601): the script hides it then. */
  expires_at: string;
  /** How long a given address waits before it is sent. */
  delay_minutes: number;
}

const REFUND_ID = /^re_[0-9A-Za-z]{22}$/;

/** A refund with an address that is being sent or was: a retry of the form gets its answer. */
const SENDING_STATUSES: readonly string[] = ['Pending', 'Processing', 'Completed'];

/**
 * The customer's side of a refund that `requires_destination`: on the session's hosted page,
 * opened with the refund's link (its secret, RefundDestinationLinks; the session's link alone is
 * not enough), they enter the address, checked as a payout's `to_address`; the refund becomes
 * `Pending` and its payout is created in the same transaction, not to be sent before
 * REFUND_DESTINATION_DELAY_MINUTES have passed (the merchant may cancel meanwhile). Given once:
 * a refund that has an address never takes another.
 */
@Injectable()
export class RefundDestinations {
  private readonly expiryMinutes: number;
  private readonly delayMinutes: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly refunds: RefundsRepository,
    private readonly refundPayouts: RefundPayouts,
    private readonly destination: PayoutDestination,
    private readonly queue: PayoutQueue,
    private readonly events: RefundEvents,
    private readonly links: RefundDestinationLinks,
  ) {
    this.expiryMinutes = config.refundDestinationExpiryMinutes;
    this.delayMinutes = config.refundDestinationDelayMinutes;
  }

  /**
   * The page's script asks whether its link opens the form, and for which amounts: the page
   * offers exactly the refund its link names, whichever of the session's refunds waiting that
   * is. A wrong or missing secret is a 404 like an unknown refund, as is a refund of another
   * session; so is one that no longer waits, or whose session was paid after it was requested
   * (the merchant confirms it first; the address would be refused).
   */
  async access(sessionId: string, refundId: string, secret: unknown): Promise<RefundFormAccess> {
    const found = await this.findWithSecret(sessionId, refundId, secret);
    if (
      found.status !== 'requires_destination' ||
      (await this.refunds.sessionPaidSince(sessionId, found.created_at))
    ) {
      throw ApiException.notFound('refund', refundId);
    }
    return {
      id: found.id,
      amount: formatAmount(found.amount),
      fee: formatAmount(found.fee),
      net_amount: formatAmount(found.net_amount),
      expires_at: this.deadlineOf(found.created_at).toISOString(),
      delay_minutes: this.delayMinutes,
    };
  }

  async provide(
    sessionId: string,
    refundId: string,
    secret: unknown,
    toAddress: string,
  ): Promise<RefundDestinationAccepted> {
    const found = await this.findWithSecret(sessionId, refundId, secret);
    const network = this.networks.get(found.network as NetworkName);
    requireChecksum(network.chainFamily, toAddress);
    // Checked before the transaction: it reads the service's addresses, a query of its own.
    const address = await this.destination.check(network, toAddress);
    const { payout, accepted } = await this.dataSource.transaction(async (manager) => {
      // The session's lock first, then the refund's: the order of a refund's creation.
      if (await this.refunds.lockSessionPaidSince(manager, sessionId, found.created_at)) {
        throw new ApiException(
          ErrorCode.InvalidState,
          'This order was paid after the refund was requested: the merchant has to confirm the refund first.',
          'id',
        );
      }
      const refund = await this.refunds.lock(manager, refundId);
      if (refund && SENDING_STATUSES.includes(refund.status) && refund.to_address === address) {
        // The same answer again (a retry after a lost response): what the first one got. Only
        // while the refund is on its way: one canceled or failed since is refused below with its
        // status, not answered "will be sent" (review L2).
        return { payout: null, accepted: acceptedOf(refund, address) };
      }
      if (!refund || refund.status !== 'requires_destination') {
        throw new ApiException(
          ErrorCode.InvalidState,
          `This refund does not wait for an address any more (it is ${refund?.status ?? 'gone'}).`,
          'to_address',
        );
      }
      if (this.deadlineOf(refund.created_at).getTime() <= Date.now()) {
        // Past its deadline: the worker cancels it (RefundExpiry) and releases the hold.
        throw new ApiException(
          ErrorCode.InvalidState,
          'This refund expired waiting for an address; ask the merchant for a new one.',
          'to_address',
        );
      }
      // The merchant hears of it at once (refund.pending, with send_after) and can cancel
      // until then: the payout is not sent before (its next_attempt_at).
      const sendAfter = await this.refunds.takeDestination(
        manager,
        refund.id,
        address,
        Math.round(this.delayMinutes * 60),
      );
      const created = await this.refundPayouts.create(manager, refund, address, sendAfter);
      const row = await this.events.statusChanged(manager, refund.id, 'requires_destination');
      return { payout: created, accepted: acceptedOf(row, address) };
    });
    if (payout?.sendNow) await this.queue.enqueueSend(payout.payoutId);
    return accepted;
  }

  /**
   * The session's refund, if `secret` is its own: else a 404 like an unknown refund, before any
   * query (the secret depends on the refund id only), compared in constant time.
   */
  private async findWithSecret(
    sessionId: string,
    refundId: string,
    secret: unknown,
  ): Promise<RefundRecord> {
    if (!REFUND_ID.test(refundId) || !this.links.matches(refundId, secret)) {
      throw ApiException.notFound('refund', refundId);
    }
    const found = await this.refunds.findForSession(sessionId, refundId);
    if (!found) throw ApiException.notFound('refund', refundId);
    return found;
  }

  /** From then on the form refuses the address and the worker cancels the refund. */
  private deadlineOf(createdAt: Date): Date {
    return new Date(createdAt.getTime() + this.expiryMinutes * 60_000);
  }
}

function acceptedOf(refund: RefundRecord, address: string): RefundDestinationAccepted {
  return {
    id: refund.id,
    status: refund.status,
    to_address: address,
    send_after: refund.send_after?.toISOString() ?? null,
  };
}

/**
 * A customer types this address once, and the refund is sent to it for good: on EVM networks only
 * the EIP-55 (mixed-case) form carries a checksum that catches a typo, so an all-lowercase or
 * all-uppercase address is refused here (the merchant's API still takes one: it is theirs to check).
 */
function requireChecksum(family: string, toAddress: string): void {
  if (family !== 'EVM') return;
  const hex = toAddress.trim().replace(/^0x/i, '');
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) {
    throw new ApiException(
      ErrorCode.InvalidAddress,
      'Enter the address in its checksummed form (mixed upper and lower case, as your wallet shows it when you copy it): an all-lowercase address has no checksum to catch a typo.',
      'to_address',
    );
  }
}
