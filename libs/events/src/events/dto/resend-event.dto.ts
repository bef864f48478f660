import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

@ApiSchema({ name: 'ResendEventRequest' })
export class ResendEventDto {
  @ApiPropertyOptional({
    description:
      'Only to this endpoint (even if its `events` filter leaves this type out). Without it, to ' +
      'every enabled endpoint that receives this event.',
    example: 'we_8Kd2Lm9XcTz4Rb8VnK1pWd',
  })
  @IsOptional()
  @IsString({ message: 'webhook_endpoint_id must be a string.' })
  @Length(1, 100, { message: 'webhook_endpoint_id must be 1 to 100 characters.' })
  webhook_endpoint_id?: string;
}
