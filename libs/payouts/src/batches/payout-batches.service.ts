import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
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
import { LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';
import { SubMerchantsService } from '@app/sub-merchants';
import { CreatePayoutDto } from '../dto/create-payout.dto';
import { formatOffsetTimestamp, toPayoutDto } from '../payout.mapper';
import { PayoutRecord } from '../payout.types';
import { PayoutQueue } from '../payout-queue';
import { PayoutTermsService } from '../payout-terms';
import { NewPayoutRow, PayoutsRepository } from '../payouts.repository';
import { PayoutDestination } from '../rules/payout-destination';
import { CreatePayoutBatchDto } from './dto/create-payout-batch.dto';
import { ListPayoutBatchesQueryDto } from './dto/list-payout-batches-query.dto';
import { PayoutBatchDto, PayoutBatchStatus, PayoutBatchTotalDto } from './dto/payout-batch.dto';
import { itemErrorOf, validateBatchItem } from './payout-batch-items';
import {
  PayoutBatchesRepository,
  PayoutBatchRecord,
  PayoutBatchTotalRow,
} from './payout-batches.repository';

export const CREATE_PAYOUT_BATCH_ENDPOINT = 'POST /v1/payout-batches';

/** Destination checks run this many at a time (each may read the service's addresses). */
const DESTINATION_CHECK_CONCURRENCY = 16;

interface CheckedItem {
  input: CreatePayoutDto;
  network: NetworkConfig;
  token: TokenConfig;
  amount: Decimal;
  toAddress: string;
}

/**
 * Batch payouts: every item is a payout exactly as POST /v1/payouts creates it (the same checks and
 * terms, PayoutTermsService), all created in one transaction under one hold per token.
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

      // One hold per token, checked under its balance row's lock, taken in account order (the
      // order every posting locks in, so two batches or a batch and a payout never deadlock).
      const holds = holdsOf(rows, merchant.merchantId, subMerchantId);
      for (const hold of holds) {
        const available = await this.ledger.lockCreditBalance(manager, hold.account);
        if (available.lessThan(hold.amount)) {
          throw new ApiException(
            ErrorCode.InsufficientBalance,
            `Insufficient balance: ${formatAmount(available)} ${hold.currency} available on ${hold.network}, ${formatAmount(hold.amount)} requested by the batch's payouts in ${hold.currency} on ${hold.network}.`,
            'items',
          );
        }
      }
      const createdAt = await this.batches.insertBatch(manager, {
        id: batchId,
        merchantId: merchant.merchantId,
        subMerchantId,
        livemode: this.config.livemode,
        itemCount: rows.length,
      });
      const inserted = await this.batches.insertPayouts(manager, batchId, rows);
      await this.ledger.post(
        manager,
        batchHoldEntry(batchId, merchant.merchantId, subMerchantId, holds),
      );
      const created: PayoutRecord[] = inserted.map((row) => ({
        ...row,
        sub_merchant_code: subMerchant?.code ?? null,
      }));
      const events = this.events.batch();
      events.add(
        created.map((row) => ({
          type: 'payout.created' as const,
          merchantId: row.merchant_id,
          subMerchantId: row.sub_merchant_id,
          subMerchantCode: row.sub_merchant_code,
          objectType: 'payout' as const,
          objectId: row.id,
          previousStatus: null,
          data: { object: toPayoutDto(row) },
        })),
      );
      await this.events.write(manager, events.finish());
      const body = toBatchDto(
        {
          id: batchId,
          merchant_id: merchant.merchantId,
          sub_merchant_id: subMerchantId,
          sub_merchant_code: subMerchant?.code ?? null,
          livemode: this.config.livemode,
          item_count: rows.length,
          created_at: createdAt,
        },
        totalsOf(batchId, created),
      );
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
    for (let start = 0; start < pending.length; start += DESTINATION_CHECK_CONCURRENCY) {
      await Promise.all(
        pending
          .slice(start, start + DESTINATION_CHECK_CONCURRENCY)
          .map(async ({ index, input, checks }) => {
            const inspection = await this.destination.inspect(checks.network, input.to_address);
            if (inspection.refusal) errors.push(itemErrorOf(inspection.refusal, index));
            else checked[index] = { input, ...checks, toAddress: inspection.address as string };
          }),
      );
    }
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
  return [...holds.values()].sort((a, b) => (a.account < b.account ? -1 : 1));
}

/** The batch's one hold: per token, the sum of its payouts' amounts from available to held. */
function batchHoldEntry(
  batchId: string,
  merchantId: string,
  subMerchantId: string | null,
  holds: TokenHold[],
): LedgerEntry {
  return {
    reference: `payout_batch:${batchId}:hold`,
    kind: 'payout_hold',
    lines: holds.flatMap((hold) => {
      const token = { currency: hold.currency, network: hold.network, merchantId, subMerchantId };
      return [
        { account: hold.account, amount: hold.amount, ...token },
        {
          account: LedgerAccounts.merchantHeld(
            merchantId,
            subMerchantId,
            hold.network,
            hold.currency,
          ),
          amount: hold.amount.negated(),
          ...token,
        },
      ];
    }),
  };
}

function totalsOf(batchId: string, rows: PayoutRecord[]): PayoutBatchTotalRow[] {
  const totals = new Map<string, PayoutBatchTotalRow & { sums: Decimal[] }>();
  for (const row of rows) {
    const key = `${row.status}:${row.network}:${row.currency}`;
    let total = totals.get(key);
    if (!total) {
      total = {
        batch_id: batchId,
        status: row.status,
        currency: row.currency,
        network: row.network,
        count: 0,
        amount: '0',
        fee: '0',
        net_amount: '0',
        sums: [new Decimal(0), new Decimal(0), new Decimal(0)],
      };
      totals.set(key, total);
    }
    total.count += 1;
    total.sums = [
      total.sums[0].plus(row.amount),
      total.sums[1].plus(row.fee),
      total.sums[2].plus(row.net_amount),
    ];
  }
  return [...totals.values()]
    .sort(
      (a, b) =>
        a.network.localeCompare(b.network) ||
        a.currency.localeCompare(b.currency) ||
        a.status.localeCompare(b.status),
    )
    .map(({ sums, ...total }) => ({
      ...total,
      amount: sums[0].toFixed(),
      fee: sums[1].toFixed(),
      net_amount: sums[2].toFixed(),
    }));
}

export function toBatchDto(row: PayoutBatchRecord, totals: PayoutBatchTotalRow[]): PayoutBatchDto {
  const counts: PayoutBatchDto['counts'] = {
    Pending: 0,
    Processing: 0,
    Completed: 0,
    Failed: 0,
    Rejected: 0,
  };
  for (const total of totals) counts[total.status] += total.count;
  const open = counts.Pending + counts.Processing;
  const status: PayoutBatchStatus =
    counts.Pending === row.item_count ? 'Pending' : open === 0 ? 'Finished' : 'Processing';
  return {
    id: row.id,
    status,
    livemode: row.livemode,
    item_count: row.item_count,
    counts,
    totals: totals.map((total): PayoutBatchTotalDto => ({
      status: total.status,
      currency: total.currency,
      network: total.network,
      count: total.count,
      amount: formatAmount(total.amount),
      fee: formatAmount(total.fee),
      net_amount: formatAmount(total.net_amount),
    })),
    sub_merchant_code: row.sub_merchant_code,
    created_at: formatOffsetTimestamp(row.created_at),
  };
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
