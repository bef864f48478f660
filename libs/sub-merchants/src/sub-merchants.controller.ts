import { Body, Controller, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { ApiIdempotentCreate, IdempotencyKey, respondIdempotent } from '@app/idempotency';
import { CreateSubMerchantDto } from './dto/create-sub-merchant.dto';
import { ListSubMerchantsQueryDto } from './dto/list-sub-merchants-query.dto';
import { SubMerchantDto } from './dto/sub-merchant.dto';
import { UpdateSubMerchantDto } from './dto/update-sub-merchant.dto';
import { SubMerchantsService } from './sub-merchants.service';

const CODE_PARAM = {
  name: 'code',
  description: 'The sub-merchant code you chose.',
  example: 'shop-042',
};

@ApiTags('Sub-merchants')
@ApiBearerAuth()
@Controller('v1/sub-merchants')
export class SubMerchantsController {
  constructor(private readonly subMerchants: SubMerchantsService) {}

  @Post()
  @RequiresPermission('sub_merchants:write')
  @ApiOperation({
    operationId: 'createSubMerchant',
    summary: 'Create a sub-merchant (PSP accounts)',
    description:
      'Registers a merchant you act for. Then send `X-Sub-Merchant-Code: <code>` when creating its ' +
      'checkout sessions. A direct (non-PSP) account gets 403; an existing code gets 409.',
  })
  @ApiIdempotentCreate({
    type: SubMerchantDto,
    noun: 'sub-merchant',
    keyRequired: false,
    keyExample: '5b7c2d1e-3f4a-4b5c-8d6e-7f8091a2b3c4',
  })
  @ApiErrorResponses(400, 401, 403, 409, 413, 429)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateSubMerchantDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubMerchantDto> {
    return respondIdempotent(
      response,
      await this.subMerchants.create(merchant, body, idempotencyKey),
    );
  }

  @Get()
  @RequiresPermission('sub_merchants:read')
  @ApiOperation({
    operationId: 'listSubMerchants',
    summary: 'List sub-merchants (PSP accounts)',
    description: 'Newest first, bare array; `X-Total-Count` and `Link` headers as on every list.',
  })
  @ApiPaginatedResponse(SubMerchantDto, 'Sub-merchants')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListSubMerchantsQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<SubMerchantDto[]> {
    return respond(query, (page) => this.subMerchants.list(merchant, query, page));
  }

  @Get(':code')
  @RequiresPermission('sub_merchants:read')
  @ApiOperation({ operationId: 'getSubMerchant', summary: 'Get a sub-merchant by its code' })
  @ApiParam(CODE_PARAM)
  @ApiOkResponse({ type: SubMerchantDto })
  @ApiErrorResponses(401, 403, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('code') code: string,
  ): Promise<SubMerchantDto> {
    return this.subMerchants.get(merchant, code);
  }

  @Patch(':code')
  @RequiresPermission('sub_merchants:write')
  @ApiOperation({
    operationId: 'updateSubMerchant',
    summary: 'Update a sub-merchant',
    description:
      'Changes only the fields sent. `null` clears email, website and logo_url; `metadata` replaces ' +
      'the whole map. The code cannot change. Disabling stops new sessions; existing ones still list.',
  })
  @ApiParam(CODE_PARAM)
  @ApiOkResponse({ type: SubMerchantDto })
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async update(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('code') code: string,
    @Body() body: UpdateSubMerchantDto,
  ): Promise<SubMerchantDto> {
    return this.subMerchants.update(merchant, code, body);
  }
}
