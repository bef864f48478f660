import { IsObject, IsOptional, IsString, Length } from 'class-validator';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

export class PasskeyFreshCodeDto {
  @IsOptional()
  @IsString({ message: 'two_factor_code must be a string.' })
  @Length(6, 6, { message: 'two_factor_code must be the 6-digit code of your authenticator app.' })
  two_factor_code?: string;
}

export class PasskeyRegistrationDto {
  @IsString({ message: 'name must be a string.' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters.' })
  name: string;

  /** What @simplewebauthn/browser's startRegistration answered; the library checks it whole. */
  @IsObject({ message: 'response must be the authenticator response.' })
  response: RegistrationResponseJSON;
}

export class PasskeyAssertionDto {
  /** What @simplewebauthn/browser's startAuthentication answered. */
  @IsObject({ message: 'response must be the authenticator response.' })
  response: AuthenticationResponseJSON;
}
