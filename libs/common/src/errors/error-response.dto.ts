import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ErrorCode, ErrorType } from './error-code';

@ApiSchema({ name: 'ErrorItem' })
export class ErrorItemDto {
  @ApiProperty({ description: 'Position of the item in the request, from 0.', example: 3 })
  index: number;

  @ApiProperty({ description: "The item's field the error is about.", example: 'to_address' })
  param: string;

  @ApiProperty({ enum: ErrorCode, example: ErrorCode.InvalidAddress })
  code: ErrorCode;

  @ApiProperty({ example: 'to_address is not a TRON address (base58check, starting with T).' })
  message: string;
}

@ApiSchema({ name: 'ErrorBody' })
export class ErrorBodyDto {
  @ApiProperty({ enum: ErrorType, example: ErrorType.InvalidRequest })
  type: ErrorType;

  @ApiProperty({ enum: ErrorCode, example: ErrorCode.ParameterInvalid })
  code: ErrorCode;

  @ApiProperty({
    description: 'Human-readable explanation. Do not parse it; branch on `code`.',
    example: 'pricing_amount must be a positive decimal string with at most 6 fractional digits.',
  })
  message: string;

  @ApiPropertyOptional({
    description:
      'The request parameter, header or body field the error is about, when there is one.',
    example: 'pricing_amount',
  })
  param?: string;

  @ApiPropertyOptional({
    type: () => [ErrorItemDto],
    description:
      'Every item refused, when a request carries several (`batch_items_invalid`): all are ' +
      'listed, not only the first.',
  })
  errors?: ErrorItemDto[];

  @ApiProperty({
    description:
      'Identifier of the request, also sent in the `Request-Id` header. Quote it to support.',
    example: 'req_5kJ2bQ9x0aZ1cD3eF4gH6i',
  })
  request_id: string;
}

@ApiSchema({ name: 'ErrorResponse' })
export class ErrorResponseDto {
  @ApiProperty({ type: ErrorBodyDto })
  error: ErrorBodyDto;
}
