import { IsString, Length } from 'class-validator';

export class RejectPayoutDto {
  @IsString({ message: 'reason must be a string.' })
  @Length(1, 500, { message: 'reason must be 1 to 500 characters.' })
  reason: string;
}
