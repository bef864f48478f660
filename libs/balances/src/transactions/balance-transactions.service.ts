import { Injectable } from '@nestjs/common';
import { AuthenticatedMerchant } from '@app/auth';
import { ApiException, createdRange, formatAmount, Page, PageRequest } from '@app/common';
import { SubMerchantsService } from '@app/sub-merchants';
import { typeOfKind } from './balance-transaction-types';
import {
  BalanceTransactionFilter,
  BalanceTransactionRow,
  BalanceTransactionsRepository,
} from './balance-transactions.repository';
import { csvRecord } from './csv';
import { BalanceTransactionDto } from './dto/balance-transaction.dto';
import { ListBalanceTransactionsQueryDto } from './dto/list-balance-transactions-query.dto';

/** The CSV columns: the JSON fields, in their order. */
export const CSV_COLUMNS: Array<keyof BalanceTransactionDto> = [
  'id',
  'type',
  'amount',
  'fee',
  'net',
  'currency',
  'network',
  'balance_after',
  'source_id',
  'sub_merchant_code',
  'created_at',
];

/** Every movement of a merchant's available balance, read from the ledger's running balances. */
@Injectable()
export class BalanceTransactionsService {
  constructor(
    private readonly repository: BalanceTransactionsRepository,
    private readonly subMerchants: SubMerchantsService,
  ) {}

  async list(
    merchant: AuthenticatedMerchant,
    query: ListBalanceTransactionsQueryDto,
    page: PageRequest,
  ): Promise<Page<BalanceTransactionDto>> {
    const { rows, pageInfo } = await this.repository.list(await this.filter(merchant, query), page);
    return { items: rows.map(toDto), pageInfo };
  }

  async get(merchant: AuthenticatedMerchant, id: string): Promise<BalanceTransactionDto> {
    const row = await this.repository.findOne(merchant.merchantId, id);
    if (!row) throw ApiException.notFound('balance transaction', id);
    return toDto(row);
  }

  /**
   * The same list as CSV text, header first, every match (paging parameters other than
   * `starting_after` do not apply), produced as the consumer reads it. The filters and the cursor
   * are checked before it starts, so a bad one is still an ordinary 400.
   */
  async csv(
    merchant: AuthenticatedMerchant,
    query: ListBalanceTransactionsQueryDto,
  ): Promise<AsyncGenerator<string>> {
    const filter = await this.filter(merchant, query);
    let after: { createdAt: string; id: string } | undefined;
    if (query.starting_after !== undefined) {
      after = await this.repository.cursorPosition(merchant.merchantId, query.starting_after);
      if (!after) {
        throw ApiException.invalid(
          'starting_after',
          `No such balance transaction: '${query.starting_after}'.`,
        );
      }
    }
    return this.csvRecords(filter, after);
  }

  private async *csvRecords(
    filter: BalanceTransactionFilter,
    after: { createdAt: string; id: string } | undefined,
  ): AsyncGenerator<string> {
    yield csvRecord(CSV_COLUMNS);
    for await (const rows of this.repository.stream(filter, after)) {
      let chunk = '';
      for (const row of rows) {
        const dto = toDto(row);
        chunk += csvRecord(CSV_COLUMNS.map((column) => dto[column]));
      }
      yield chunk;
    }
  }

  private async filter(
    merchant: AuthenticatedMerchant,
    query: ListBalanceTransactionsQueryDto,
  ): Promise<BalanceTransactionFilter> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    return {
      merchantId: merchant.merchantId,
      scope,
      types: query.type,
      currency: query.currency,
      network: query.network,
      ...createdRange(query),
    };
  }
}

function toDto(row: BalanceTransactionRow): BalanceTransactionDto {
  return {
    id: row.public_id,
    type: typeOfKind(row.kind),
    amount: formatAmount(row.amount),
    fee: formatAmount(row.fee),
    net: formatAmount(row.net),
    currency: row.currency,
    network: row.network,
    balance_after: formatAmount(row.balance_after),
    source_id: row.source_id,
    sub_merchant_code: row.sub_merchant_code,
    created_at: row.created_at,
  };
}
