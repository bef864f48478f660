import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import {
  APP_CONFIG,
  AppConfig,
  ApiErrorItem,
  ApiException,
  createdRange,
  ErrorCode,
  formatAmount,
  ID_PREFIX,
  newId,
  PageInfo,
  PageRequest,
} from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { NetworkConfig, TokenConfig } from '@app/chains';
import { EventWriter } from '@app/events';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyService, IdempotentResult } from '@app/idempotency';
import { compareAccounts, LedgerAccounts, LedgerService } from '@app/ledger';
import { SubMerchantsService } from '@app/sub-merchants';
import { CreatePayoutDto } from '../dto/create-payout.dto';
import { toPayoutDto } from '../payout.mapper';
import { holdEntry } from '../payout-ledger';
import { PayoutRecord } from '../payout.types';
import { PayoutQueue } from '../payout-queue';
import { PayoutTermsService } from '../payout-terms';
import { NewPayoutRow, PayoutsRepository } from '../payouts.repository';
import { PayoutDestination } from '../rules/payout-destination';
import { CreatePayoutBatchDto } from './dto/create-payout-batch.dto';
import { ListPayoutBatchesQueryDto } from './dto/list-payout-batches-query.dto';
import { PayoutBatchDto } from './dto/payout-batch.dto';
import { toBatchDto, totalsOf } from './payout-batch.mapper';
import { itemErrorOf, validateBatchItem } from './payout-batch-items';
import { PayoutBatchesRepository } from './payout-batches.repository';

export const CREATE_PAYOUT_BATCH_ENDPOINT = 'POST /v1/payout-batches';

interface CheckedItem {
  input: CreatePayoutDto;
  network: NetworkConfig;
  token: TokenConfig;
  amount: Decimal;
  toAddress: string;
}

/**
 * Batch payouts: every item is a payout exactly as POST /v1/payouts creates it (the same checks and
 * terms, PayoutTermsService, and the same hold entry, `payout:<id>:hold`), all created in one
 * transaction that locks each token's balance once, at its end (docs/payouts.md, "Batches").
 */
@Injectable()
export class PayoutBatchesService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly batches: PayoutBatchesRepository,
    private readonly payouts: PayoutsRepository,
    private readonly terms: PayoutTermsService,
    private readonly destination: PayoutDestination,
    private readonly ledger: LedgerService,
    private readonly idempotency: IdempotencyService,
    private readonly subMerchants: SubMerchantsService,
    private readonly events: EventWriter,
    private readonly queue: PayoutQueue,
  ) {}

  async create(
    merchant: AuthenticatedMerchant,
    input: CreatePayoutBatchDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
    /** Runs in the batch's transaction after it is written (the console's audit entry). */
    onCreated?: (manager: EntityManager, batch: PayoutBatchDto) => Promise<void>,
  ): Promise<IdempotentResult<PayoutBatchDto>> {
    if (idempotencyKey === undefined) {
      throw new ApiException(
        ErrorCode.ParameterMissing,
        'Idempotency-Key is required on POST /v1/payout-batches, so a retried request never pays twice. Send a new UUID v4 per batch.',
        IDEMPOTENCY_KEY_HEADER,
      );
    }
    const request = {
      merchantId: merchant.merchantId,
      key: idempotencyKey,
      endpoint: CREATE_PAYOUT_BATCH_ENDPOINT,
      fingerprint: { body: input, sub_merchant_code: subMerchantCode ?? null },
    };
    // A replay answers what the first request got without checking 1,000 items again.
    const stored = await this.idempotency.storedResult<PayoutBatchDto>(request);
    if (stored) return stored;
    const subMerchant = await this.subMerchants.resolveForCreation(merchant, subMerchantCode);
    const { checked, errors } = await this.checkItems(input.items);

    // Payouts no review holds back, sent once the transaction has committed.
    let sendable: string[] = [];
    const result = await this.idempotency.execute(request, async (manager) => {
      const policy = await this.payouts.merchantPolicy(manager, merchant.merchantId);
      const paid = policy.reviewNewDestinations
        ? await this.batches.paidDestinations(
            manager,
            merchant.merchantId,
            checked.flatMap((item) =>
              item ? [{ network: item.input.network, address: item.toAddress }] : [],
            ),
          )
        : new Set<string>();
      const batchId = newId(ID_PREFIX.payoutBatch);
      const subMerchantId = subMerchant?.id ?? null;
      const rows: NewPayoutRow[] = [];
      checked.forEach((item, index) => {
        if (!item) return;
        const { input: payout, amount, toAddress, network, token } = item;
        let terms;
        try {
          terms = this.terms.termsUnder(
            policy,
            payout,
            amount,
            !paid.has(`${payout.network}:${toAddress.toLowerCase()}`),
          );
        } catch (error) {
          errors.push(itemErrorOf(error, index));
          return;
        }
        rows.push({
          id: newId(ID_PREFIX.payout),
          merchantId: merchant.merchantId,
          subMerchantId,
          livemode: this.config.livemode,
          amount: amount.toFixed(),
          fee: terms.fee.toFixed(),
          netAmount: terms.net.toFixed(),
          feePercent: terms.rule.percent.toFixed(),
          feeFixed: terms.rule.fixed.toFixed(),
          currency: payout.currency,
          network: payout.network,
          chainFamily: network.chainFamily,
          tokenContract: token.contract,
          tokenDecimals: token.decimals,
          toAddress,
          description: payout.description ?? null,
          metadata: payout.metadata ?? null,
          reviewReason: terms.reviewReason,
        });
      });
      if (errors.length) throw itemsInvalid(errors);

      // Everything that needs no lock first: the batch, its payouts and their events. The
      // merchant's balance rows are locked only for the check and the holds below, so settlement
      // and other payouts of these tokens wait a few milliseconds, not the whole batch.
      const createdAt = await this.batches.insertBatch(manager, {
        id: batchId,
        merchantId: merchant.merchantId,
        subMerchantId,
        livemode: this.config.livemode,
        itemCount: rows.length,
      });
      const inserted = await this.batches.insertPayouts(manager, batchId, rows);
      const created: PayoutRecord[] = inserted.map((row) => ({
        ...row,
        sub_merchant_code: subMerchant?.code ?? null,
      }));
      const body = toBatchDto(
        {
          id: batchId,
          merchant_id: merchant.merchantId,
          sub_merchant_id: subMerchantId,
          sub_merchant_code: subMerchant?.code ?? null,
          livemode: this.config.livemode,
          item_count: rows.length,
          created_at: createdAt,
          finished_at: null,
        },
        totalsOf(batchId, created),
      );
      const owner = {
        merchantId: merchant.merchantId,
        subMerchantId,
        subMerchantCode: subMerchant?.code ?? null,
        previousStatus: null,
      };
      const events = this.events.batch();
      events.add([
        {
          ...owner,
          type: 'payout_batch.created',
          objectType: 'payout_batch',
          objectId: batchId,
          data: { object: body },
        },
      ]);
      events.add(
        created.map((row) => ({
          ...owner,
          type: 'payout.created' as const,
          objectType: 'payout' as const,
          objectId: row.id,
          data: { object: toPayoutDto(row) },
        })),
      );
      await this.events.write(manager, events.finish());

      // Per token, the balance row locked and checked once, in account order (byte order, the
      // order every posting locks in, so two batches or a batch and a payout never deadlock);
      // then each payout's own hold, all in one statement, so the statement lists each payout.
      for (const hold of holdsOf(rows, merchant.merchantId, subMerchantId)) {
        const available = await this.ledger.lockCreditBalance(manager, hold.account);
        if (available.lessThan(hold.amount)) {
          throw new ApiException(
            ErrorCode.InsufficientBalance,
            `Insufficient balance: ${formatAmount(available)} ${hold.currency} available on ${hold.network}, ${formatAmount(hold.amount)} requested by the batch's payouts in ${hold.currency} on ${hold.network}.`,
            'items',
          );
        }
      }
      await this.ledger.postMany(manager, created.map(holdEntry));
      await onCreated?.(manager, body);
      sendable = created.filter((row) => !row.review_reason).map((row) => row.id);
      return { status: 201, body };
    });
    if (!result.replayed) await this.queue.enqueueSends(sendable);
    return result;
  }

  async get(merchant: AuthenticatedMerchant, id: string): Promise<PayoutBatchDto> {
    const row = await this.batches.findForMerchant(merchant.merchantId, id);
    if (!row) throw ApiException.notFound('payout batch', id);
    return toBatchDto(row, await this.batches.totals([row.id]));
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListPayoutBatchesQueryDto,
    page: PageRequest,
  ): Promise<{ items: PayoutBatchDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.batches.list(
      { merchantId: merchant.merchantId, scope, ...createdRange(query) },
      page,
    );
    const totals = await this.batches.totals(rows.map((row) => row.id));
    return {
      items: rows.map((row) =>
        toBatchDto(
          row,
          totals.filter((total) => total.batch_id === row.id),
        ),
      ),
      pageInfo,
    };
  }

  /**
   * Every item through the single payout's checks (DTO, network and token, bounds, destination),
   * each failure kept with its index. Entries of `checked` are null for refused items.
   */
  private async checkItems(
    items: unknown[],
  ): Promise<{ checked: Array<CheckedItem | null>; errors: ApiErrorItem[] }> {
    const errors: ApiErrorItem[] = [];
    const checked: Array<CheckedItem | null> = items.map(() => null);
    const pending: Array<{
      index: number;
      input: CreatePayoutDto;
      checks: Omit<CheckedItem, 'input' | 'toAddress'>;
    }> = [];
    items.forEach((raw, index) => {
      const validated = validateBatchItem(raw, index);
      if ('error' in validated) return errors.push(validated.error);
      try {
        pending.push({
          index,
          input: validated.item,
          checks: this.terms.checkToken(validated.item),
        });
      } catch (error) {
        errors.push(itemErrorOf(error, index));
      }
    });
    const inspections = await this.destination.inspectMany(
      pending.map(({ input, checks }) => ({
        network: checks.network,
        toAddress: input.to_address,
      })),
    );
    pending.forEach(({ index, input, checks }, position) => {
      const inspection = inspections[position];
      if (inspection.refusal) errors.push(itemErrorOf(inspection.refusal, index));
      else checked[index] = { input, ...checks, toAddress: inspection.address as string };
    });
    return { checked, errors };
  }
}

interface TokenHold {
  account: string;
  currency: string;
  network: string;
  amount: Decimal;
}

function holdsOf(
  rows: NewPayoutRow[],
  merchantId: string,
  subMerchantId: string | null,
): TokenHold[] {
  const holds = new Map<string, TokenHold>();
  for (const row of rows) {
    const account = LedgerAccounts.merchant(merchantId, subMerchantId, row.network, row.currency);
    const hold = holds.get(account);
    if (hold) hold.amount = hold.amount.plus(row.amount);
    else
      holds.set(account, {
        account,
        currency: row.currency,
        network: row.network,
        amount: new Decimal(row.amount),
      });
  }
  return [...holds.values()].sort((a, b) => compareAccounts(a.account, b.account));
}

function itemsInvalid(errors: ApiErrorItem[]): ApiException {
  const sorted = [...errors].sort((a, b) => a.index - b.index);
  return new ApiException(
    ErrorCode.BatchItemsInvalid,
    `${sorted.length} of the batch's payouts cannot be created; nothing was written. error.errors lists each (index, param, code, message).`,
    'items',
    {},
    sorted,
  );
}
