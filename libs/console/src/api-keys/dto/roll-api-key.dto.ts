import { IsIn, IsOptional, Matches } from 'class-validator';
import { ROLL_EXPIRIES, RollExpiry } from '@app/auth';
import { TWO_FACTOR_CODE } from './create-api-key.dto';

const EXPIRIES = Object.keys(ROLL_EXPIRIES) as RollExpiry[];

/** POST /console/api/api-keys/:id/roll. */
export class RollApiKeyDto {
  /** When the rolled key stops working. */
  @IsIn(EXPIRIES, { message: `expires_in must be one of: ${EXPIRIES.join(', ')}.` })
  expires_in: RollExpiry;

  /** A fresh TOTP code: required in production. */
  @IsOptional()
  @Matches(TWO_FACTOR_CODE, { message: 'two_factor_code must be 6 digits.' })
  two_factor_code?: string;
}
