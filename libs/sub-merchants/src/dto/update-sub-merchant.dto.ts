import { ApiHideProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  Equals,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsStringMap } from '@app/common';
import { SUB_MERCHANT_STATUSES, SubMerchantStatus } from '../sub-merchant.entity';
import { HTTP_URL_OPTIONS } from './create-sub-merchant.dto';

const present = (field: string) => (object: Record<string, unknown>) => object[field] !== undefined;

/** Every field optional; `null` clears email, website and logo_url. The code cannot change. */
@ApiSchema({ name: 'UpdateSubMerchantRequest' })
export class UpdateSubMerchantDto {
  @ApiHideProperty()
  @ValidateIf(present('code'))
  @Equals(undefined, { message: 'code cannot be changed; create a new sub-merchant instead.' })
  code?: never;

  @ApiPropertyOptional({
    description: 'Display name, 1-200 characters.',
    example: 'Corner Coffee Ltd',
  })
  @ValidateIf(present('name'))
  @IsString({ message: 'name must be a string.' })
  @Length(1, 200, { message: 'name must be 1 to 200 characters.' })
  name?: string;

  @ApiPropertyOptional({ enum: SUB_MERCHANT_STATUSES, example: 'disabled' })
  @ValidateIf(present('status'))
  @IsIn(SUB_MERCHANT_STATUSES, { message: 'status must be "active" or "disabled".' })
  status?: SubMerchantStatus;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'email',
    example: 'billing@corner.example',
  })
  @IsOptional()
  @IsString({ message: 'email must be an email address or null.' })
  @MaxLength(254, { message: 'email must be at most 254 characters.' })
  @IsEmail({}, { message: 'email must be an email address or null.' })
  email?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    example: 'https://corner.example',
  })
  @IsOptional()
  @IsString({ message: 'website must be an http(s) URL or null.' })
  @MaxLength(2048, { message: 'website must be at most 2048 characters.' })
  @IsUrl(HTTP_URL_OPTIONS, { message: 'website must be an http(s) URL or null.' })
  website?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'uri', example: null })
  @IsOptional()
  @IsString({ message: 'logo_url must be an http(s) URL or null.' })
  @MaxLength(2048, { message: 'logo_url must be at most 2048 characters.' })
  @IsUrl(HTTP_URL_OPTIONS, { message: 'logo_url must be an http(s) URL or null.' })
  logo_url?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Replaces the whole metadata map. Send {} to clear it.',
    example: { region: 'EU', tier: 'gold' },
  })
  @ValidateIf(present('metadata'))
  @IsStringMap()
  metadata?: Record<string, string>;
}
