import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

export class StartViewAsDto {
  @IsString({ message: 'merchant_id must be a string.' })
  @Length(1, 100, { message: 'merchant_id must be 1 to 100 characters.' })
  merchant_id: string;

  // Ten characters at least: a ticket number or a sentence, not "x".
  @IsString({ message: 'reason must be a string.' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @Length(10, 500, { message: 'reason must be 10 to 500 characters.' })
  reason: string;

  @IsOptional()
  @IsInt({ message: 'minutes must be a whole number from 1 to 60.' })
  @Min(1, { message: 'minutes must be a whole number from 1 to 60.' })
  @Max(60, { message: 'minutes must be a whole number from 1 to 60.' })
  minutes?: number;
}
