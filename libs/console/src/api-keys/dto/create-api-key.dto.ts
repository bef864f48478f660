import { Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
} from 'class-validator';
import { API_SCOPES, ApiScope } from '@app/auth';

export const TWO_FACTOR_CODE = /^[0-9]{6}$/;

/** POST /console/api/api-keys. */
export class CreateApiKeyDto {
  /** Shown in the list; defaults to "Secret key" or "Restricted key". */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString({ message: 'name must be a string.' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters.' })
  name?: string;

  /** Absent: a full secret key. Present: a restricted key holding only these scopes. */
  @IsOptional()
  @IsArray({ message: 'scopes must be an array of API scopes.' })
  @ArrayNotEmpty({ message: 'scopes must name at least one scope (omit it for a secret key).' })
  @ArrayUnique({ message: 'scopes must not repeat a scope.' })
  @IsIn(API_SCOPES, { each: true, message: `scopes may hold only: ${API_SCOPES.join(', ')}.` })
  scopes?: ApiScope[];

  /** A fresh TOTP code: required in production. */
  @IsOptional()
  @Matches(TWO_FACTOR_CODE, { message: 'two_factor_code must be 6 digits.' })
  two_factor_code?: string;
}
