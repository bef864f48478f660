import { IsEmail, IsIn, Length } from 'class-validator';
import { CONSOLE_ROLES, ConsoleRole } from '@app/auth';

const ROLE_MESSAGE = `role must be one of ${CONSOLE_ROLES.join(', ')}.`;

export class InviteMemberDto {
  @IsEmail({}, { message: 'email must be an e-mail address.' })
  @Length(3, 254, { message: 'email must be 3 to 254 characters.' })
  email: string;

  @IsIn(CONSOLE_ROLES, { message: ROLE_MESSAGE })
  role: ConsoleRole;
}

export class ChangeRoleDto {
  @IsIn(CONSOLE_ROLES, { message: ROLE_MESSAGE })
  role: ConsoleRole;
}
