import { IsString, Length } from 'class-validator';

/** The customer's answer on the hosted page: where the refund goes. */
export class RefundDestinationDto {
  @IsString({ message: 'to_address must be an address string.' })
  @Length(1, 100, { message: 'to_address must be an address string.' })
  to_address: string;
}
