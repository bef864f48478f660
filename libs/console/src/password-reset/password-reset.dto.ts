import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../passwords/passwords';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function isResetTokenShape(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export class PasswordResetLookupDto {
  @IsString({ message: 'token must be a string.' })
  @Matches(TOKEN_SHAPE, { message: 'token must be the token of a reset link.' })
  token: string;
}

export class CompletePasswordResetDto extends PasswordResetLookupDto {
  // The same rule as at invitation: length only (NIST SP 800-63B).
  @IsString({ message: 'password must be a string.' })
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, {
    message: `password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`,
  })
  password: string;

  /** The authenticator's current code or an unused recovery code (when two-factor is on). */
  @IsOptional()
  @IsString({ message: 'code must be a string.' })
  @Length(6, 20, { message: 'code must be a 6-digit code or a recovery code.' })
  code?: string;
}
