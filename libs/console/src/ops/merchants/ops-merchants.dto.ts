import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

// Only plain digit strings become numbers, so "1e2" is refused rather than read as 100.
const toStrictInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;

export class ListMerchantsQueryDto {
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt({ message: 'limit must be a whole number from 1 to 100.' })
  @Min(1, { message: 'limit must be a whole number from 1 to 100.' })
  @Max(100, { message: 'limit must be a whole number from 1 to 100.' })
  limit?: number;

  @IsOptional()
  @IsString({ message: 'starting_after must be a single string.' })
  @Length(1, 100, { message: 'starting_after must be 1 to 100 characters.' })
  starting_after?: string;
}
