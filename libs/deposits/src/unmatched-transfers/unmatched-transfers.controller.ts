import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { ListUnmatchedTransfersQueryDto } from './dto/list-unmatched-transfers-query.dto';
import { UnmatchedTransferDto } from './dto/unmatched-transfer.dto';
import { UnmatchedTransfersService } from './unmatched-transfers.service';

@ApiTags('Unmatched transfers')
@ApiBearerAuth()
@Controller('v1/unmatched-transfers')
export class UnmatchedTransfersController {
  constructor(private readonly transfers: UnmatchedTransfersService) {}

  @Get()
  @RequiresPermission('checkout_sessions:read')
  @ApiOperation({
    operationId: 'listUnmatchedTransfers',
    summary: 'List unmatched transfers',
    description:
      "Payments to your sessions' pay addresses that no session took, so none of them is in your " +
      'balance: sent on another network (`wrong_network`), in the other stablecoin (`wrong_token`), ' +
      'to a session already `Paid` (`session_already_paid`), or to a session you refunded ' +
      '(`session_refunded`). Refund the sender (`from_address`) ' +
      'or settle them with us. Zero-value transfers (address poisoning) are never recorded.\n\n' +
      'Newest first, as a bare JSON array, with `X-Total-Count` and `Link` headers. Sub-merchant ' +
      'scoping as on session lists: own by default, `include_sub_merchants=true` for all, ' +
      '`sub_merchant_code=X` for one.',
  })
  @ApiPaginatedResponse(UnmatchedTransferDto, 'Unmatched transfers')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListUnmatchedTransfersQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<UnmatchedTransferDto[]> {
    return respond(query, (page) => this.transfers.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('checkout_sessions:read')
  @ApiOperation({ operationId: 'getUnmatchedTransfer', summary: 'Get an unmatched transfer' })
  @ApiParam({
    name: 'id',
    description: 'Unmatched transfer id.',
    example: 'utx_5Rk2Wq8NvC1mZt7LpX3bYd',
  })
  @ApiOkResponse({ type: UnmatchedTransferDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<UnmatchedTransferDto> {
    return this.transfers.get(merchant, id);
  }
}
