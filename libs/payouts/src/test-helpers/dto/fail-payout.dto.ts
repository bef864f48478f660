import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export const SIMULATED_FAILURE_REASON_MAX_LENGTH = 500;

@ApiSchema({ name: 'SimulatePayoutFailureRequest' })
export class FailPayoutDto {
  @ApiProperty({
    description: `Why it failed, as the payout's \`error_reason\` (1 to ${SIMULATED_FAILURE_REASON_MAX_LENGTH} characters).`,
    example: 'simulated: recipient contract reverted',
    maxLength: SIMULATED_FAILURE_REASON_MAX_LENGTH,
  })
  @IsString({ message: 'reason must be a string.' })
  @Length(1, SIMULATED_FAILURE_REASON_MAX_LENGTH, {
    message: `reason must be 1 to ${SIMULATED_FAILURE_REASON_MAX_LENGTH} characters.`,
  })
  reason: string;
}
