import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsIsoDateTime } from '@app/common';

const DATE_TIME_FORMAT = 'RFC 3339 date-time with seconds and an offset (`Z` or `±hh:mm`)';

@ApiSchema({ name: 'RecoverWebhookEndpointRequest' })
export class RecoverWebhookEndpointDto {
  @ApiProperty({
    description: `Redeliver every failed delivery of events created at or after this instant: ${DATE_TIME_FORMAT}.`,
    format: 'date-time',
    example: '2026-11-20T00:00:00Z',
  })
  @IsIsoDateTime()
  since: string;

  @ApiPropertyOptional({
    description: `...and before this instant (default: now): ${DATE_TIME_FORMAT}.`,
    format: 'date-time',
    example: '2026-11-23T00:00:00+01:00',
  })
  @IsOptional()
  @IsIsoDateTime()
  until?: string;
}

@ApiSchema({ name: 'WebhookEndpointRecovery' })
export class RecoveryDto {
  @ApiProperty({ description: 'How many failed deliveries were scheduled again.', example: 12 })
  scheduled: number;
}
