import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const DEFAULT_ROTATION_GRACE_HOURS = 24;

@ApiSchema({ name: 'RotateWebhookEndpointSecretRequest' })
export class RotateSecretDto {
  @ApiPropertyOptional({
    description:
      'How long the previous secret keeps signing deliveries beside the new one (0 to 168 hours), ' +
      'so you can deploy the new secret without dropping a webhook.',
    default: DEFAULT_ROTATION_GRACE_HOURS,
    example: 24,
  })
  @IsOptional()
  @IsInt({ message: 'grace_period_hours must be a whole number from 0 to 168.' })
  @Min(0, { message: 'grace_period_hours must be a whole number from 0 to 168.' })
  @Max(168, { message: 'grace_period_hours must be a whole number from 0 to 168.' })
  grace_period_hours?: number;
}
