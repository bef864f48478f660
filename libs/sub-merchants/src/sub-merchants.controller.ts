import {
  Body,
  Controller,
  Get,
  Headers,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant } from '@app/auth';
import {
  ApiErrorResponses,
  ApiPaginatedResponse,
  setPaginationHeaders,
  toPageRequest,
} from '@app/common';
import { IDEMPOTENCY_KEY_HEADER, respondIdempotent } from '@app/idempotency';
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
  @ApiOperation({
    operationId: 'createSubMerchant',
    summary: 'Create a sub-merchant (PSP accounts)',
    description:
      'Registers a merchant you act for. Then send `X-Sub-Merchant-Code: <code>` when creating its ' +
      'checkout sessions. A direct (non-PSP) account gets 403; an existing code gets 409.',
  })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'Optional; same semantics as on checkout sessions.',
    example: '5b7c2d1e-3f4a-4b5c-8d6e-7f8091a2b3c4',
  })
  @ApiCreatedResponse({ type: SubMerchantDto })
  @ApiErrorResponses(400, 401, 403, 409, 413, 429)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateSubMerchantDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubMerchantDto> {
    return respondIdempotent(
      response,
      await this.subMerchants.create(merchant, body, idempotencyKey),
    );
  }

  @Get()
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
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubMerchantDto[]> {
    const page = toPageRequest(query);
    const { items, pageInfo } = await this.subMerchants.list(merchant, query, page);
    setPaginationHeaders(request, response, page, pageInfo);
    return items;
  }

  @Get(':code')
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
