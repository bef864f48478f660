import { Controller, Get, Param, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { BalanceTransactionsService, CSV_COLUMNS } from './balance-transactions.service';
import { BalanceTransactionDto } from './dto/balance-transaction.dto';
import { ListBalanceTransactionsQueryDto } from './dto/list-balance-transactions-query.dto';

/** What `Accept: text/csv` answers, as the document shows it: the header row, then records. */
const CSV_EXAMPLE =
  `${CSV_COLUMNS.join(',')}\r\n` +
  'txn_3f9c2a7be41d4c0f9a8e5b6d7c1f2e3a,payment,100,1.5,98.5,USDT,TRON,1250.75,' +
  'cs_9Hq2LmX9cTz4Rb8VnK1pWd,,2026-11-28T01:02:03.456+00:00\r\n';

@ApiTags('Balances')
@ApiBearerAuth()
@Controller('v1/balance-transactions')
export class BalanceTransactionsController {
  constructor(private readonly transactions: BalanceTransactionsService) {}

  @Get()
  @RequiresPermission('balances:read')
  @ApiOperation({
    operationId: 'listBalanceTransactions',
    summary: 'List balance transactions (a statement)',
    description:
      'Every movement of your available balance, newest first, each with the balance right ' +
      'after it, as a bare JSON array with `X-Total-Count` and `Link` headers. Sub-merchant ' +
      'scoping as on session lists: own by default, `include_sub_merchants=true` for all, ' +
      '`sub_merchant_code=X` for one. With `Accept: text/csv` the same filters answer every ' +
      'match as CSV (a header row, then the same fields in the same order), streamed whatever ' +
      'the date range; `page`, `page_size` and `include_total` do not apply to CSV, ' +
      '`starting_after` does.',
  })
  @ApiPaginatedResponse(BalanceTransactionDto, 'Balance transactions', CSV_EXAMPLE)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListBalanceTransactionsQueryDto,
    @PageResponder() respond: PageResponder,
    @Req() request: Request,
  ): Promise<BalanceTransactionDto[] | StreamableFile> {
    if (request.accepts(['application/json', 'text/csv']) === 'text/csv') {
      // Bytes, not objects (Nest pipes an object stream through a transform of its own), one
      // batch read ahead at most. Nest destroys the stream when the client goes (the cursor
      // closes, its connection is freed) and cuts the response when the stream fails midway
      // (never a short body that looks whole): both tested.
      const csv = Readable.from(await this.transactions.csv(merchant, query), {
        objectMode: false,
        highWaterMark: 1,
      });
      return new StreamableFile(csv, {
        type: 'text/csv; charset=utf-8',
        disposition: 'attachment; filename="balance-transactions.csv"',
      });
    }
    return respond(query, (page) => this.transactions.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('balances:read')
  @ApiOperation({ operationId: 'getBalanceTransaction', summary: 'Get a balance transaction' })
  @ApiParam({
    name: 'id',
    description: 'Balance transaction id.',
    example: 'txn_3f9c2a7be41d4c0f9a8e5b6d7c1f2e3a',
  })
  @ApiOkResponse({ type: BalanceTransactionDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<BalanceTransactionDto> {
    return this.transactions.get(merchant, id);
  }
}
