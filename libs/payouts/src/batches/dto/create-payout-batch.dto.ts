import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { CreatePayoutDto } from '../../dto/create-payout.dto';

export const PAYOUT_BATCH_MAX_ITEMS = 1000;

@ApiSchema({ name: 'CreatePayoutBatchRequest' })
export class CreatePayoutBatchDto {
  @ApiProperty({
    type: [CreatePayoutDto],
    minItems: 1,
    maxItems: PAYOUT_BATCH_MAX_ITEMS,
    description:
      `1 to ${PAYOUT_BATCH_MAX_ITEMS} payouts, each exactly a \`POST /v1/payouts\` body. Every ` +
      'item is checked before anything is written: a 422 `batch_items_invalid` lists every ' +
      'refused item in `error.errors` (`index`, `param`, `code`, `message`).',
    example: [
      {
        amount: '250.00',
        currency: 'USDT',
        network: 'TRON',
        to_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
        description: 'Seller payout #8812',
        metadata: '{"seller_id":"s_1842"}',
      },
    ],
  })
  // Each item is validated by the batch itself (every error listed, not the first one).
  @IsArray({ message: 'items must be an array of payouts.' })
  @ArrayMinSize(1, { message: 'items must hold at least one payout.' })
  @ArrayMaxSize(PAYOUT_BATCH_MAX_ITEMS, {
    message: `items must hold at most ${PAYOUT_BATCH_MAX_ITEMS} payouts.`,
  })
  items: unknown[];
}
