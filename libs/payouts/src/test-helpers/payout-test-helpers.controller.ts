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
import { PayoutDto } from '../dto/payout.dto';
import { FailPayoutDto } from './dto/fail-payout.dto';
import { PayoutSimulatorService } from './payout-simulator.service';

const SANDBOX_ONLY =
  'Only a Pending payout the worker has not sent (409 `invalid_state` otherwise: one it signed ' +
  'ends on chain). A payout that simulated payments fund is never sent: it waits here ' +
  '(`pending_reason` `awaiting_simulation`). Sandbox only: in production, and with an `sk_live_` key, the route does not ' +
  'exist (404 `route_not_found`). Send an `Idempotency-Key` to retry safely.';

const ID_PARAM = { name: 'id', description: 'Payout id.', example: 'po_4fHq8LmN2pRtVx6Zb1Kc9D' };

const IDEMPOTENCY_HEADER = {
  name: IDEMPOTENCY_KEY_HEADER,
  required: false,
  description: 'Up to 255 printable ASCII characters; a UUID v4 is recommended. Kept 24 hours.',
  example: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
};

const UPDATED_PAYOUT = {
  type: PayoutDto,
  description: 'The payout after the change.',
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
@Controller('v1/test-helpers/payouts')
export class PayoutTestHelpersController {
  constructor(private readonly simulator: PayoutSimulatorService) {}

  @Post(':id/complete')
  @HttpCode(200)
  @RequiresPermission('payouts:write')
  @ApiOperation({
    operationId: 'simulatePayoutCompletion',
    summary: 'Complete a payout without a chain (sandbox)',
    description:
      'The payout is Completed with a synthetic `tx_hash` (`sim_`...), its held amount leaves ' +
      'the balance for good and `payout.completed` is sent, as when the worker sees it mined. ' +
      'A payout waiting for review may only fail. ' +
      SANDBOX_ONLY,
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse(UPDATED_PAYOUT)
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async complete(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutDto> {
    return respondIdempotent(response, await this.simulator.complete(merchant, id, idempotencyKey));
  }

  @Post(':id/fail')
  @HttpCode(200)
  @RequiresPermission('payouts:write')
  @ApiOperation({
    operationId: 'simulatePayoutFailure',
    summary: 'Fail a payout without a chain (sandbox)',
    description:
      'The payout is Failed with `reason` as its `error_reason`, its held amount goes back to ' +
      'the available balance (once) and `payout.failed` is sent. ' +
      SANDBOX_ONLY,
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse(UPDATED_PAYOUT)
  @ApiErrorResponses(400, 401, 403, 404, 409, 429)
  async fail(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: FailPayoutDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutDto> {
    return respondIdempotent(
      response,
      await this.simulator.fail(merchant, id, body.reason, idempotencyKey),
    );
  }
}
