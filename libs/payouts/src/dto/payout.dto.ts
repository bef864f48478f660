import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { PAYOUT_STATUSES, PayoutStatus, PENDING_REASONS } from '../payout.types';

const TIMESTAMP = 'ISO 8601 with a numeric UTC offset';

@ApiSchema({ name: 'Payout' })
export class PayoutDto {
  @ApiProperty({
    description: 'Payout id, `po_` + 22 characters.',
    example: 'po_7Hq2LmX9cTz4Rb8VnK1pWd',
  })
  id: string;

  @ApiProperty({
    enum: PAYOUT_STATUSES,
    description:
      '`Pending`: accepted, funds held, not sent yet (see `pending_reason`). `Processing`: signed ' +
      'and broadcast, `tx_hash` known, waiting for confirmations. `Completed`: confirmed on chain. ' +
      '`Failed`: the chain refused it (`error_reason`); the funds are back in your balance. ' +
      '`Rejected`: refused at review (`error_reason`); the funds are back in your balance.',
    example: 'Pending',
  })
  status: PayoutStatus;

  @ApiProperty({ description: 'false in the sandbox, true in production.', example: false })
  livemode: boolean;

  @ApiProperty({ description: 'Amount debited from your balance, decimal string.', example: '250' })
  amount: string;

  @ApiProperty({
    description:
      'Service fee, fixed when the payout was created: the network fee plus your percent.',
    example: '1',
  })
  fee: string;

  @ApiProperty({
    description: '`amount - fee`: exactly what the recipient receives on chain.',
    example: '249',
  })
  net_amount: string;

  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({
    description: 'Recipient address (checksummed on EVM networks).',
    example: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  })
  to_address: string;

  @ApiProperty({ type: String, nullable: true, example: 'Withdrawal #8812' })
  description: string | null;

  @ApiProperty({ type: String, nullable: true, example: '{"user_id":"u_1842"}' })
  metadata: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Hash of the on-chain transaction once signed. If a stuck transaction is replaced with a ' +
      'higher fee, this is the latest one until one is mined, then the mined one.',
    example: null,
  })
  tx_hash: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the payout `Failed` or was `Rejected`.',
    example: null,
  })
  error_reason: string | null;

  @ApiProperty({
    enum: PENDING_REASONS,
    nullable: true,
    description:
      'Why a `Pending` payout is waiting: for an operator review (`review_amount_above_threshold`, ' +
      '`review_new_destination`), or for the hot wallet to be funded (`hot_wallet_insufficient_token`, ' +
      '`hot_wallet_insufficient_gas`), or for the network (`network_unavailable`). Sandbox only: ' +
      '`awaiting_simulation`, simulated payments fund it, so it is never sent on a chain and ends ' +
      'only by `POST /v1/test-helpers/payouts/{id}/complete` or `…/fail`. Null otherwise.',
    example: null,
  })
  pending_reason: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Operator who reviewed it.',
    example: null,
  })
  reviewed_by: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `Review time, ${TIMESTAMP}.`,
    example: null,
  })
  reviewed_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `Completion time, ${TIMESTAMP}.`,
    example: null,
  })
  completed_at: string | null;

  @ApiProperty({
    description: `Creation time, ${TIMESTAMP}.`,
    example: '2026-11-22T10:00:00.000+00:00',
  })
  created_at: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Sub-merchant whose balance paid it (PSP accounts), else null.',
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The batch that created it (`POST /v1/payout-batches`, `pob_…`), null for a payout created ' +
      "on its own. `GET /v1/payouts?batch_id=` lists a batch's payouts.",
    example: 'pob_4Fh8KwZ2mQx7Lc1RvT9nJe',
  })
  batch_id: string | null;
}
