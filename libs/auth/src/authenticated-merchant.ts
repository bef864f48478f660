import { MerchantKind } from './merchant.entity';

/** Who is calling: resolved once per request by the bearer guard. */
export interface AuthenticatedMerchant {
  merchantId: string;
  kind: MerchantKind;
  name: string;
  logoUrl: string | null;
  livemode: boolean;
  apiKeyId: string;
}
