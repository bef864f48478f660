import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsStringMap } from '@app/common';
import {
  SUB_MERCHANT_CODE_PATTERN,
  SUB_MERCHANT_STATUSES,
  SubMerchantStatus,
} from '../sub-merchant.entity';

export const HTTP_URL_OPTIONS = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
};
export const CODE_MESSAGE = 'code must be 3 to 64 letters, digits, "-" or "_".';

@ApiSchema({ name: 'CreateSubMerchantRequest' })
export class CreateSubMerchantDto {
  @ApiProperty({
    description: 'Your identifier: 3-64 letters, digits, `-`, `_`; unique within your account.',
    example: 'shop-042',
    pattern: '^[A-Za-z0-9_-]{3,64}$',
  })
  @IsString({ message: CODE_MESSAGE })
  @Matches(SUB_MERCHANT_CODE_PATTERN, { message: CODE_MESSAGE })
  code: string;

  @ApiProperty({ description: 'Display name, 1-200 characters.', example: 'Corner Coffee' })
  @IsString({ message: 'name must be a string.' })
  @Length(1, 200, { message: 'name must be 1 to 200 characters.' })
  name: string;

  @ApiPropertyOptional({ enum: SUB_MERCHANT_STATUSES, default: 'active', example: 'active' })
  @IsOptional()
  @IsIn(SUB_MERCHANT_STATUSES, { message: 'status must be "active" or "disabled".' })
  status?: SubMerchantStatus;

  @ApiPropertyOptional({ format: 'email', example: 'owner@corner.example' })
  @IsOptional()
  @IsString({ message: 'email must be an email address.' })
  @MaxLength(254, { message: 'email must be at most 254 characters.' })
  @IsEmail({}, { message: 'email must be an email address.' })
  email?: string;

  @ApiPropertyOptional({ format: 'uri', example: 'https://corner.example' })
  @IsOptional()
  @IsString({ message: 'website must be an http(s) URL.' })
  @MaxLength(2048, { message: 'website must be at most 2048 characters.' })
  @IsUrl(HTTP_URL_OPTIONS, { message: 'website must be an http(s) URL.' })
  website?: string;

  @ApiPropertyOptional({ format: 'uri', example: 'https://corner.example/logo.png' })
  @IsOptional()
  @IsString({ message: 'logo_url must be an http(s) URL.' })
  @MaxLength(2048, { message: 'logo_url must be at most 2048 characters.' })
  @IsUrl(HTTP_URL_OPTIONS, { message: 'logo_url must be an http(s) URL.' })
  logo_url?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Up to 50 string keys (40 characters) to string values (500 characters).',
    example: { region: 'EU' },
  })
  @IsOptional()
  @IsStringMap()
  metadata?: Record<string, string>;
}
