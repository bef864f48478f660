import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses } from '@app/common';
import { BalancesService } from './balances.service';
import { BalanceDto } from './dto/balance.dto';
import { ListBalancesQueryDto } from './dto/list-balances-query.dto';

@ApiTags('Balances')
@ApiBearerAuth()
@Controller('v1/balances')
export class BalancesController {
  constructor(private readonly balances: BalancesService) {}

  @Get()
  @RequiresPermission('balances:read')
  @ApiOperation({
    operationId: 'listBalances',
    summary: 'List balances',
    description:
      'One entry per network, currency and (for PSP accounts) sub-merchant that has ever been ' +
      'credited, as a bare array. A confirmed payment credits its net amount (after fee) in the ' +
      'same database transaction that confirms it; a reorged payment is reversed. Sub-merchant ' +
      'scoping works as on session lists: own by default, `include_sub_merchants=true` for all, ' +
      '`sub_merchant_code=X` for one.',
  })
  @ApiOkResponse({ type: [BalanceDto] })
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListBalancesQueryDto,
  ): Promise<BalanceDto[]> {
    return this.balances.list(merchant, query);
  }
}
