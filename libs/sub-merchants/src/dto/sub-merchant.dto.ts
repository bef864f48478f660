import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { SUB_MERCHANT_STATUSES, SubMerchantStatus } from '../sub-merchant.entity';

@ApiSchema({ name: 'SubMerchant' })
export class SubMerchantDto {
  @ApiProperty({
    description: 'Your identifier for the sub-merchant, unique within your account. Never changes.',
    example: 'shop-042',
    pattern: '^[A-Za-z0-9_-]{3,64}$',
  })
  code: string;

  @ApiProperty({
    description: 'Display name, shown on its hosted checkout pages.',
    example: 'Corner Coffee',
  })
  name: string;

  @ApiProperty({
    enum: SUB_MERCHANT_STATUSES,
    description:
      '`disabled` sub-merchants cannot get new sessions or payouts; their records stay listed.',
    example: 'active',
  })
  status: SubMerchantStatus;

  @ApiProperty({ type: String, nullable: true, format: 'email', example: 'owner@corner.example' })
  email: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'uri', example: 'https://corner.example' })
  website: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uri',
    description: 'Shown on the hosted page instead of your logo when set.',
    example: 'https://corner.example/logo.png',
  })
  logo_url: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Up to 50 string keys (40 characters) to string values (500 characters).',
    example: { region: 'EU', tier: 'gold' },
  })
  metadata: Record<string, string>;

  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  updated_at: string;
}
