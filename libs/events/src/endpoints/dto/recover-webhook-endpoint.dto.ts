import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';

const ISO_OPTIONS = { strict: true, strictSeparator: true };

export class RecoverWebhookEndpointDto {
  @ApiProperty({
    description: 'Redeliver every failed delivery of events created at or after this instant.',
    example: '2026-11-20T00:00:00Z',
  })
  @IsISO8601(ISO_OPTIONS, { message: 'since must be an ISO 8601 date-time.' })
  since: string;

  @ApiPropertyOptional({
    description: '...and before this instant (default: now).',
    example: '2026-11-23T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601(ISO_OPTIONS, { message: 'until must be an ISO 8601 date-time.' })
  until?: string;
}

export class RecoveryDto {
  @ApiProperty({ description: 'How many failed deliveries were scheduled again.', example: 12 })
  scheduled: number;
}
