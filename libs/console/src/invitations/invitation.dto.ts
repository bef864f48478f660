import { IsString, Length, Matches } from 'class-validator';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../passwords/passwords';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export class InvitationLookupDto {
  @IsString({ message: 'token must be a string.' })
  @Matches(TOKEN_SHAPE, { message: 'token must be the token of an invitation URL.' })
  token: string;
}

export class AcceptInvitationDto extends InvitationLookupDto {
  // Length is the rule (NIST SP 800-63B): no composition rules, which make passwords worse.
  @IsString({ message: 'password must be a string.' })
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, {
    message: `password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`,
  })
  password: string;
}

/** An invitation accepted by an existing account: its password and second factor. */
export class AcceptWithAccountDto extends InvitationLookupDto {
  // Any length is checked against the hash, as on the sign-in form.
  @IsString({ message: 'password must be a string.' })
  @Length(1, 1024, { message: 'password must be 1 to 1024 characters.' })
  password: string;

  @IsString({ message: 'code must be a string.' })
  @Length(6, 20, { message: 'code must be a 6-digit code or a recovery code.' })
  code: string;
}

export function isInvitationTokenShape(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}
