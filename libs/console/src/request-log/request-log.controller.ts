import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { createdRange, PageResponder } from '@app/common';
import { ListRequestLogQueryDto } from './dto/list-request-log-query.dto';
import { RequestLogEntryDto, toRequestLogEntryDto } from './dto/request-log-entry.dto';
import { RequestLogRepository } from './request-log.repository';

/**
 * The console's request log: the merchant's authenticated API requests of the last 30 days,
 * newest first, paged like every list of the API (docs/pagination.md). Console only: no API key
 * holds `request_log:read`.
 */
@ApiExcludeController()
@Controller('console/api/request-log')
export class RequestLogController {
  constructor(private readonly requestLog: RequestLogRepository) {}

  @Get()
  @RequiresPermission('request_log:read')
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListRequestLogQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<RequestLogEntryDto[]> {
    return respond(query, async (page) => {
      const filter = {
        merchantId: merchant.merchantId,
        statuses: query.status,
        methods: query.method,
        ...createdRange(query),
      };
      const { rows, pageInfo } = await this.requestLog.list(filter, page);
      return { items: rows.map(toRequestLogEntryDto), pageInfo };
    });
  }
}
