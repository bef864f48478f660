import { ApiSchema, IntersectionType } from '@nestjs/swagger';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';

@ApiSchema({ name: 'ListPayoutBatchesQuery' })
export class ListPayoutBatchesQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {}
