import { IsEmail, IsIn, IsOptional, Length, Matches } from 'class-validator';
import { CONSOLE_ROLES, ConsoleRole } from '@app/auth';
import { TWO_FACTOR_CODE } from '../api-keys/dto/create-api-key.dto';

const ROLE_MESSAGE = `role must be one of ${CONSOLE_ROLES.join(', ')}.`;

export class InviteMemberDto {
  @IsEmail({}, { message: 'email must be an e-mail address.' })
  @Length(3, 254, { message: 'email must be 3 to 254 characters.' })
  email: string;

  @IsIn(CONSOLE_ROLES, { message: ROLE_MESSAGE })
  role: ConsoleRole;

  /** A fresh TOTP code: required in production to grant a role that manages keys or the team. */
  @IsOptional()
  @Matches(TWO_FACTOR_CODE, { message: 'two_factor_code must be 6 digits.' })
  two_factor_code?: string;
}

export class ChangeRoleDto {
  @IsIn(CONSOLE_ROLES, { message: ROLE_MESSAGE })
  role: ConsoleRole;

  /** A fresh TOTP code: required in production to grant a role that manages keys or the team. */
  @IsOptional()
  @Matches(TWO_FACTOR_CODE, { message: 'two_factor_code must be 6 digits.' })
  two_factor_code?: string;
}
