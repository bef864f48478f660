import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, APP_CONFIG, AppConfig, ErrorCode } from '@app/common';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { PayoutQueue } from '@app/payouts';
import { PayoutDestination } from '@app/payouts/rules/payout-destination';
import { RefundEvents } from './refund-events';
import { RefundPayouts } from './refund-payouts';
import { RefundsRepository } from './refunds.repository';

/** What the hosted page shows the customer once the address is taken. */
export interface RefundDestinationAccepted {
  id: string;
  status: string;
  to_address: string;
}

const REFUND_ID = /^re_[0-9A-Za-z]{22}$/;

/**
 * The customer's side of a refund that `requires_destination`: on the session's hosted page
 * (the unguessable session id is the credential, as for the page itself) they enter the address,
 * checked as a payout's `to_address`; the refund becomes `Pending` and its payout is created in
 * the same transaction. Given once: a refund that has an address never takes another.
 */
@Injectable()
export class RefundDestinations {
  private readonly expiryMinutes: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly refunds: RefundsRepository,
    private readonly refundPayouts: RefundPayouts,
    private readonly destination: PayoutDestination,
    private readonly queue: PayoutQueue,
    private readonly events: RefundEvents,
  ) {
    this.expiryMinutes = config.refundDestinationExpiryMinutes;
  }

  async provide(
    sessionId: string,
    refundId: string,
    toAddress: string,
  ): Promise<RefundDestinationAccepted> {
    if (!REFUND_ID.test(refundId)) throw ApiException.notFound('refund', refundId);
    const found = await this.refunds.findForSession(sessionId, refundId);
    if (!found) throw ApiException.notFound('refund', refundId);
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
      if (refund && refund.status !== 'requires_destination' && refund.to_address === address) {
        // The same answer again (a retry after a lost response): what the first one got.
        return {
          payout: null,
          accepted: { id: refund.id, status: refund.status, to_address: address },
        };
      }
      if (!refund || refund.status !== 'requires_destination') {
        throw new ApiException(
          ErrorCode.InvalidState,
          `This refund does not wait for an address any more (it is ${refund?.status ?? 'gone'}).`,
          'to_address',
        );
      }
      if (refund.created_at.getTime() + this.expiryMinutes * 60_000 <= Date.now()) {
        // Past its deadline: the worker cancels it (RefundExpiry) and releases the hold.
        throw new ApiException(
          ErrorCode.InvalidState,
          'This refund expired waiting for an address; ask the merchant for a new one.',
          'to_address',
        );
      }
      await this.refunds.setStatus(manager, refund.id, 'Pending', { toAddress: address });
      const created = await this.refundPayouts.create(manager, refund, address);
      const row = await this.events.statusChanged(manager, refund.id, 'requires_destination');
      return {
        payout: created,
        accepted: { id: row.id, status: row.status, to_address: address },
      };
    });
    if (payout?.sendNow) await this.queue.enqueueSend(payout.payoutId);
    return accepted;
  }
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
