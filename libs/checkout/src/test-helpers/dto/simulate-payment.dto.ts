import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsDecimalAmount } from '@app/common';

@ApiSchema({ name: 'SimulatePaymentRequest' })
export class SimulatePaymentDto {
  @ApiProperty({
    description:
      "Amount of the session's token sent to its pay address, as a decimal string (at most the " +
      "token's decimals). Below what is due: the session stays Pending (Underpaid once expired); " +
      'what is due (within the underpayment tolerance) or more: Paid.',
    example: '10.5',
    pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,18})?$',
  })
  @IsDecimalAmount({ maxIntegerDigits: 12, maxFractionDigits: 18 })
  amount: string;

  @ApiPropertyOptional({
    description:
      "Confirmations the transfer has. At least the network's (the default): detected and " +
      'confirmed at once. Fewer: detected only, Pending (it stays so until reverted).',
    example: 1,
    minimum: 0,
    maximum: 1000,
  })
  @IsOptional()
  @IsInt({ message: 'confirmations must be an integer.' })
  @Min(0, { message: 'confirmations must be at least 0.' })
  @Max(1000, { message: 'confirmations must be at most 1000.' })
  confirmations?: number;
}
