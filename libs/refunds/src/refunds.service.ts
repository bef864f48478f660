import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, createdRange, ErrorCode, PageInfo, PageRequest } from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { IdempotentResult } from '@app/idempotency';
import { SubMerchantsService } from '@app/sub-merchants';
import { CreateRefundDto } from './dto/create-refund.dto';
import { ListRefundsQueryDto } from './dto/list-refunds-query.dto';
import { RefundDto } from './dto/refund.dto';
import { RefundCancellation } from './refund-cancellation';
import { RefundCreatedHook, RefundCreation } from './refund-creation';
import { mayReadDestinationLink, RefundDestinationLinks } from './refund-destination-links';
import { toRefundDto } from './refund.mapper';
import { CANCELABLE_STATUSES } from './refund.types';
import { RefundsRepository } from './refunds.repository';

export {
  CREATE_SESSION_REFUND_ENDPOINT,
  CREATE_UNMATCHED_REFUND_ENDPOINT,
  type RefundCreatedHook,
} from './refund-creation';

/**
 * Refunds of sessions and unmatched transfers: created with the amount held (one transaction,
 * under the source's row lock and the balance's; RefundCreation), given a destination by the
 * merchant or the customer, canceled while nothing is signed. Sending is the payout worker's
 * (RefundPayouts).
 */
@Injectable()
export class RefundsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly refunds: RefundsRepository,
    private readonly subMerchants: SubMerchantsService,
    private readonly cancellation: RefundCancellation,
    private readonly links: RefundDestinationLinks,
    private readonly creation: RefundCreation,
  ) {}

  async createForSession(
    merchant: AuthenticatedMerchant,
    sessionId: string,
    input: CreateRefundDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
    onCreated?: RefundCreatedHook,
  ): Promise<IdempotentResult<RefundDto>> {
    return this.creation.createForSession(
      merchant,
      sessionId,
      input,
      idempotencyKey,
      subMerchantCode,
      onCreated,
    );
  }

  async createForUnmatchedTransfer(
    merchant: AuthenticatedMerchant,
    transferId: string,
    input: CreateRefundDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
    onCreated?: RefundCreatedHook,
  ): Promise<IdempotentResult<RefundDto>> {
    return this.creation.createForUnmatchedTransfer(
      merchant,
      transferId,
      input,
      idempotencyKey,
      subMerchantCode,
      onCreated,
    );
  }

  async get(merchant: AuthenticatedMerchant, id: string): Promise<RefundDto> {
    const row = await this.refunds.findForMerchant(merchant.merchantId, id);
    if (!row) throw ApiException.notFound('refund', id);
    return toRefundDto(row, this.linksFor(merchant));
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListRefundsQueryDto,
    page: PageRequest,
  ): Promise<{ items: RefundDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.refunds.list(
      {
        merchantId: merchant.merchantId,
        scope,
        statuses: query.status,
        sessionId: query.session_id,
        ...createdRange(query),
      },
      page,
    );
    const links = this.linksFor(merchant);
    return { items: rows.map((row) => toRefundDto(row, links)), pageInfo };
  }

  /**
   * Cancels a refund nothing has signed: `requires_destination`, or `Pending` with its payout not
   * claimed by the worker (the payout's row lock decides between the two). The held amount goes
   * back where it came from.
   */
  async cancel(merchant: AuthenticatedMerchant, id: string): Promise<RefundDto> {
    // Twice at most: a customer may give the address (creating the payout) between our two locks.
    for (let attempt = 0; attempt < 2; attempt++) {
      const canceled = await this.dataSource.transaction(async (manager) => {
        // The payout's lock first, then the refund's: the order the payout worker takes them in.
        const payout = await this.refunds.lockPayout(manager, id);
        const refund = await this.refunds.lock(manager, id);
        if (!refund || refund.merchant_id !== merchant.merchantId) {
          throw ApiException.notFound('refund', id);
        }
        if (!CANCELABLE_STATUSES.includes(refund.status)) {
          throw new ApiException(
            ErrorCode.InvalidState,
            `Refund ${id} is ${refund.status}: only a refund not sent yet (requires_destination or Pending) can be canceled.`,
            'id',
          );
        }
        if (refund.status === 'Pending' && !payout) return null;
        return toRefundDto(
          await this.cancellation.cancelLocked(manager, refund, payout?.id ?? null),
          this.linksFor(merchant),
        );
      });
      if (canceled) return canceled;
    }
    // The customer gave the address between our locks twice running: it is moving, not lost.
    throw new ApiException(
      ErrorCode.InvalidState,
      `Refund ${id} changed while canceling (its address was just given); read it and retry.`,
      'id',
    );
  }

  /** The links, for a caller who may read them (mayReadDestinationLink); else none (null). */
  private linksFor(merchant: AuthenticatedMerchant): RefundDestinationLinks | undefined {
    return mayReadDestinationLink(merchant) ? this.links : undefined;
  }
}
