import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../../http/client-info';
import { CurrentOperator, OpsAuth } from '../access/ops-access';
import { OperatorSession } from '../access/operator-sessions';
import { OpsKeyRevocation } from './ops-key-revocation';
import { ListMerchantsQueryDto } from './ops-merchants.dto';
import { OpsMerchantsReader } from './ops-merchants.reader';

const DEFAULT_LIMIT = 50;

/** Merchants and their API keys (docs/operators.md): read by every operator, revoked by admins. */
@ApiExcludeController()
@Controller('ops/api/merchants')
export class OpsMerchantsController {
  constructor(
    private readonly merchants: OpsMerchantsReader,
    private readonly keys: OpsKeyRevocation,
  ) {}

  @Get()
  @OpsAuth()
  async list(@Query() query: ListMerchantsQueryDto) {
    return this.merchants.list(query.limit ?? DEFAULT_LIMIT, query.starting_after);
  }

  @Get(':id')
  @OpsAuth()
  async one(@Param('id') id: string) {
    return this.merchants.one(id);
  }

  @Post(':id/keys/:keyId/revoke')
  @HttpCode(200)
  @OpsAuth({ admin: true })
  async revokeKey(
    @Param('id') merchantId: string,
    @Param('keyId') keyId: string,
    @CurrentOperator() operator: OperatorSession,
    @Req() request: Request,
  ) {
    return this.keys.revoke(operator, merchantId, keyId, clientInfo(request));
  }
}
