import { Allow, IsString, Length } from 'class-validator';

/**
 * The refund link's secret (from its URL fragment), on every request of the hosted refund form.
 * Not validated here: missing, malformed or wrong, the answer is the same 404 as for an unknown
 * refund (RefundDestinations).
 */
export class RefundFormAccessDto {
  @Allow()
  secret?: unknown;
}

/** The customer's answer on the hosted page: where the refund goes. */
export class RefundDestinationDto extends RefundFormAccessDto {
  @IsString({ message: 'to_address must be an address string.' })
  @Length(1, 100, { message: 'to_address must be an address string.' })
  to_address: string;
}
