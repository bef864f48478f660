import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { PAYOUT_STATUSES, PayoutStatus } from '../../payout.types';

export const PAYOUT_BATCH_STATUSES = ['Pending', 'Processing', 'Finished'] as const;
export type PayoutBatchStatus = (typeof PAYOUT_BATCH_STATUSES)[number];

@ApiSchema({ name: 'PayoutBatchTotal' })
export class PayoutBatchTotalDto {
  @ApiProperty({ enum: PAYOUT_STATUSES, example: 'Pending' })
  status: PayoutStatus;

  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({ description: 'Payouts of the batch in this status and token.', example: 998 })
  count: number;

  @ApiProperty({ description: 'Sum of their `amount`.', example: '24950' })
  amount: string;

  @ApiProperty({ description: 'Sum of their `fee`.', example: '1122.75' })
  fee: string;

  @ApiProperty({ description: 'Sum of their `net_amount`.', example: '23827.25' })
  net_amount: string;
}

@ApiSchema({ name: 'PayoutBatchCounts' })
export class PayoutBatchCountsDto {
  @ApiProperty({ example: 998 }) Pending: number;
  @ApiProperty({ example: 0 }) Processing: number;
  @ApiProperty({ example: 0 }) Completed: number;
  @ApiProperty({ example: 0 }) Failed: number;
  @ApiProperty({ example: 2 }) Rejected: number;
}

@ApiSchema({ name: 'PayoutBatch' })
export class PayoutBatchDto {
  @ApiProperty({
    description: 'Batch id, `pob_` + 22 characters.',
    example: 'pob_4Fh8KwZ2mQx7Lc1RvT9nJe',
  })
  id: string;

  @ApiProperty({
    enum: PAYOUT_BATCH_STATUSES,
    description:
      'Read from its payouts: `Pending` while every payout is `Pending`, `Finished` once every ' +
      'one is `Completed`, `Failed` or `Rejected`, `Processing` in between.',
    example: 'Pending',
  })
  status: PayoutBatchStatus;

  @ApiProperty({ description: 'false in the sandbox, true in production.', example: false })
  livemode: boolean;

  @ApiProperty({ description: 'Number of payouts in the batch.', example: 1000 })
  item_count: number;

  @ApiProperty({ type: PayoutBatchCountsDto, description: 'Payouts of the batch per status.' })
  counts: PayoutBatchCountsDto;

  @ApiProperty({
    type: [PayoutBatchTotalDto],
    description: 'Count and sums per status, currency and network (no row for a zero count).',
  })
  totals: PayoutBatchTotalDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The sub-merchant whose balance paid the batch (PSP accounts).',
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({
    description: 'ISO 8601 with a numeric UTC offset.',
    example: '2026-11-28T01:02:03.456+00:00',
  })
  created_at: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'When its last payout reached a final status (`Completed`, `Failed` or `Rejected`): the ' +
      'time of the `payout_batch.completed` event. Null until then. ISO 8601 with a numeric UTC ' +
      'offset.',
    example: null,
  })
  finished_at: string | null;
}
