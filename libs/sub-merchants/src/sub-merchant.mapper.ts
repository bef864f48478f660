import { SubMerchantDto } from './dto/sub-merchant.dto';
import { SubMerchantRecord } from './sub-merchants.repository';

export function toSubMerchantDto(row: SubMerchantRecord): SubMerchantDto {
  return {
    code: row.code,
    name: row.name,
    status: row.status,
    email: row.email,
    website: row.website,
    logo_url: row.logo_url,
    metadata: row.metadata,
    livemode: row.livemode,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
