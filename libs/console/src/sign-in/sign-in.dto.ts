import { IsIn, IsOptional, IsString, Length } from 'class-validator';

export class SignInDto {
  @IsString({ message: 'email must be a string.' })
  @Length(3, 254, { message: 'email must be 3 to 254 characters.' })
  email: string;

  // Any length is checked against the hash (a too long one simply fails), up to a bound that
  // keeps argon2's input small.
  @IsString({ message: 'password must be a string.' })
  @Length(1, 1024, { message: 'password must be 1 to 1024 characters.' })
  password: string;

  /** `operator` for the /ops area; the console's users are `merchant` (the default). */
  @IsOptional()
  @IsIn(['merchant', 'operator'], { message: 'realm must be merchant or operator.' })
  realm?: 'merchant' | 'operator';
}

export class TwoFactorCodeDto {
  @IsString({ message: 'code must be a string.' })
  @Length(6, 20, { message: 'code must be a 6-digit code or a recovery code.' })
  code: string;
}
