import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses } from '@app/common';
import {
  IDEMPOTENCY_KEY_HEADER,
  IdempotencyKey,
  IDEMPOTENT_REPLAYED_HEADER,
  respondIdempotent,
} from '@app/idempotency';
import { CheckoutSessionDto } from '../dto/checkout-session.dto';
import { SimulatePaymentDto } from './dto/simulate-payment.dto';
import { SessionSimulatorService } from './session-simulator.service';

const SANDBOX_ONLY =
  'Sandbox only: in production, and with an `sk_live_` key, the route does not exist (404 ' +
  '`route_not_found`). Send an `Idempotency-Key` to retry safely (the same key and body return ' +
  'the stored response with `Idempotent-Replayed: true`).';

const ID_PARAM = { name: 'id', description: 'Session id.', example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa' };

const IDEMPOTENCY_HEADER = {
  name: IDEMPOTENCY_KEY_HEADER,
  required: false,
  description: 'Up to 255 printable ASCII characters; a UUID v4 is recommended. Kept 24 hours.',
  example: '0f8fad5b-d9cb-469f-a165-70867728950e',
};

const UPDATED_SESSION = {
  type: CheckoutSessionDto,
  description: 'The session after the change.',
  headers: {
    [IDEMPOTENT_REPLAYED_HEADER]: {
      description:
        '"true" when this is the stored response of an earlier request with the same key.',
      schema: { type: 'string', enum: ['true'] },
    },
  },
};

@ApiTags('Test helpers')
@ApiBearerAuth()
@Controller('v1/test-helpers/checkout/sessions')
export class CheckoutTestHelpersController {
  constructor(private readonly simulator: SessionSimulatorService) {}

  @Post(':id/payments')
  @HttpCode(200)
  @RequiresPermission('checkout_sessions:write')
  @ApiOperation({
    operationId: 'simulateCheckoutSessionPayment',
    summary: 'Simulate a payment to a session (sandbox)',
    description:
      "A transfer of `amount` to the session's pay address, detected as if on chain (and " +
      "confirmed when `confirmations` reach the network's), with a synthetic `tx_hash` starting " +
      'with `sim_`. It goes through the same settlement as a real one: status, amounts, ledger, ' +
      'events, webhooks and the hosted page. A payment after `expires_at` is a late payment. ' +
      'A session already paid or refunded takes none (409 `invalid_state`). ' +
      SANDBOX_ONLY,
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse(UPDATED_SESSION)
  @ApiErrorResponses(400, 401, 403, 404, 409, 429)
  async pay(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: SimulatePaymentDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutSessionDto> {
    return respondIdempotent(
      response,
      await this.simulator.pay(merchant, id, body, idempotencyKey),
    );
  }

  @Post(':id/reorg')
  @HttpCode(200)
  @RequiresPermission('checkout_sessions:write')
  @ApiOperation({
    operationId: 'simulateCheckoutSessionReorg',
    summary: "Revert a session's last simulated transfer (sandbox)",
    description:
      'A reorg takes the last simulated transfer that is not reverted off the chain: ' +
      '`checkout.session.transaction_reverted`, and the session settles again as after a real ' +
      'reorg (back to Pending before `expires_at`). 409 `invalid_state` without such a transfer. ' +
      SANDBOX_ONLY,
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse(UPDATED_SESSION)
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async reorg(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutSessionDto> {
    return respondIdempotent(response, await this.simulator.reorg(merchant, id, idempotencyKey));
  }

  @Post(':id/expire')
  @HttpCode(200)
  @RequiresPermission('checkout_sessions:write')
  @ApiOperation({
    operationId: 'expireCheckoutSession',
    summary: 'Expire a session now (sandbox)',
    description:
      '`expires_at` becomes now and the session settles as the expiry job would: Expired, or ' +
      'Underpaid when it received something. Only a Pending session (409 `invalid_state`). ' +
      SANDBOX_ONLY,
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse(UPDATED_SESSION)
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async expire(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutSessionDto> {
    return respondIdempotent(response, await this.simulator.expire(merchant, id, idempotencyKey));
  }
}
