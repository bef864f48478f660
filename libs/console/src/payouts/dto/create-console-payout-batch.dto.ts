import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { CreatePayoutBatchDto } from '@app/payouts';
import { TWO_FACTOR_CODE } from '../../api-keys/dto/create-api-key.dto';

/**
 * POST /v1/payout-batches' body (same rules, one DTO) plus what the console adds: the fresh code
 * a batch asks for, and the Idempotency-Key the upload page makes once per file, in the body.
 */
export class CreateConsolePayoutBatchDto extends CreatePayoutBatchDto {
  /** Optional here so a missing code is the 401 two_factor_required the form reacts to. */
  @IsOptional()
  @Matches(TWO_FACTOR_CODE, { message: 'two_factor_code must be 6 digits.' })
  two_factor_code?: string;

  @IsString({ message: 'idempotency_key must be a string (a UUID v4 per batch).' })
  @Length(1, 255, { message: 'idempotency_key must be 1 to 255 characters.' })
  idempotency_key: string;
}
