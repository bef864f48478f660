import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { PaginationQueryDto } from '@app/common';
import { SUB_MERCHANT_STATUSES, SubMerchantStatus } from '../sub-merchant.entity';

@ApiSchema({ name: 'ListSubMerchantsQuery' })
export class ListSubMerchantsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: SUB_MERCHANT_STATUSES, example: 'active' })
  @IsOptional()
  @IsIn(SUB_MERCHANT_STATUSES, { message: 'status must be "active" or "disabled".' })
  status?: SubMerchantStatus;

  @ApiPropertyOptional({
    description: 'Case-insensitive: a code starting with it, or a name or email containing it.',
    example: 'coffee',
  })
  @IsOptional()
  @IsString({ message: 'search_text must be a single string.' })
  @Length(1, 200, { message: 'search_text must be 1 to 200 characters.' })
  search_text?: string;
}
