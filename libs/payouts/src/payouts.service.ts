import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  APP_CONFIG,
  AppConfig,
  ApiException,
  ErrorCode,
  formatAmount,
  ID_PREFIX,
  newId,
  createdRange,
  PageInfo,
  PageRequest,
} from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyService, IdempotentResult } from '@app/idempotency';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { SubMerchantsService } from '@app/sub-merchants';
import { CreatePayoutDto } from './dto/create-payout.dto';
import { ListPayoutsQueryDto } from './dto/list-payouts-query.dto';
import { PayoutDto } from './dto/payout.dto';
import { toPayoutDto } from './payout.mapper';
import { PayoutEvents } from './payout-events';
import { PayoutQueue } from './payout-queue';
import { holdEntry } from './payout-ledger';
import { PayoutsRepository } from './payouts.repository';
import { PayoutDestination } from './rules/payout-destination';
import { PayoutTermsService } from './payout-terms';

export const CREATE_PAYOUT_ENDPOINT = 'POST /v1/payouts';

/**
 * Runs in the new payout's transaction, after it is written: the console records its audit entry
 * there, so the entry exists exactly when the payout does. An idempotent replay runs no hook.
 */
export type PayoutCreatedHook = (manager: EntityManager, payout: PayoutDto) => Promise<void>;

@Injectable()
export class PayoutsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly payouts: PayoutsRepository,
    private readonly terms: PayoutTermsService,
    private readonly destination: PayoutDestination,
    private readonly ledger: LedgerService,
    private readonly idempotency: IdempotencyService,
    private readonly subMerchants: SubMerchantsService,
    private readonly queue: PayoutQueue,
    private readonly events: PayoutEvents,
  ) {}

  /**
   * Writes the payout and moves its amount from available to held in one transaction, under the
   * balance row's lock: two payouts racing for the last funds can never both pass. The lock is
   * taken by the hold itself, the transaction's last statement before the idempotency key.
   */
  async create(
    merchant: AuthenticatedMerchant,
    input: CreatePayoutDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
    onCreated?: PayoutCreatedHook,
  ): Promise<IdempotentResult<PayoutDto>> {
    if (idempotencyKey === undefined) {
      throw new ApiException(
        ErrorCode.ParameterMissing,
        'Idempotency-Key is required on POST /v1/payouts, so a retried request never pays twice. Send a new UUID v4 per payout.',
        IDEMPOTENCY_KEY_HEADER,
      );
    }
    const { subMerchant, network, token, amount } = await this.terms.checkRequest(
      merchant,
      input,
      subMerchantCode,
    );
    const toAddress = await this.destination.check(network, input.to_address);
    const subMerchantId = subMerchant?.id ?? null;

    const result = await this.idempotency.execute(
      {
        merchantId: merchant.merchantId,
        key: idempotencyKey,
        endpoint: CREATE_PAYOUT_ENDPOINT,
        fingerprint: { body: input, sub_merchant_code: subMerchantCode ?? null },
      },
      async (manager) => {
        const { rule, fee, net, reviewReason } = await this.terms.terms(
          manager,
          merchant.merchantId,
          input,
          amount,
          toAddress,
        );
        const record = await this.payouts.insert(manager, {
          id: newId(ID_PREFIX.payout),
          merchantId: merchant.merchantId,
          subMerchantId,
          livemode: this.config.livemode,
          amount: amount.toFixed(),
          fee: fee.toFixed(),
          netAmount: net.toFixed(),
          feePercent: rule.percent.toFixed(),
          feeFixed: rule.fixed.toFixed(),
          currency: input.currency,
          network: input.network,
          chainFamily: network.chainFamily,
          tokenContract: token.contract,
          tokenDecimals: token.decimals,
          toAddress,
          description: input.description ?? null,
          metadata: input.metadata ?? null,
          reviewReason,
        });
        const created = { ...record, sub_merchant_code: subMerchant?.code ?? null };
        await this.events.record(manager, created, null);
        const body = toPayoutDto(created);
        await onCreated?.(manager, body);
        // The hold last: it locks the balance row until the commit, and every payout of the
        // merchant queues on that row, so whatever ran inside the lock divided the merchant's
        // rate (docs/performance.md, "Payouts"). Nothing above is visible before the commit,
        // and a refused hold rolls all of it back.
        const account = LedgerAccounts.merchant(
          merchant.merchantId,
          subMerchantId,
          input.network,
          input.currency,
        );
        const hold = await this.ledger.postIfCovered(manager, holdEntry(record), account, amount);
        if (!hold.posted) {
          if (hold.available.greaterThanOrEqualTo(amount)) {
            throw new Error(`Payout ${record.id}: its hold was posted already`);
          }
          throw new ApiException(
            ErrorCode.InsufficientBalance,
            `Insufficient balance: ${formatAmount(hold.available)} ${input.currency} available on ${input.network}, ${formatAmount(amount)} requested.`,
            'amount',
          );
        }
        return { status: 201, body };
      },
    );
    const created = result.response.body;
    if (!result.replayed && created.pending_reason === null)
      await this.queue.enqueueSend(created.id);
    return result;
  }

  async get(merchant: AuthenticatedMerchant, id: string): Promise<PayoutDto> {
    const row = await this.payouts.findForMerchant(merchant.merchantId, id);
    if (!row) throw ApiException.notFound('payout', id);
    return toPayoutDto(row);
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListPayoutsQueryDto,
    page: PageRequest,
  ): Promise<{ items: PayoutDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.payouts.list(
      {
        merchantId: merchant.merchantId,
        scope,
        statuses: query.status,
        network: query.network,
        ...createdRange(query),
        searchText: query.search_text,
        batchId: query.batch_id,
      },
      page,
    );
    return { items: rows.map(toPayoutDto), pageInfo };
  }
}
