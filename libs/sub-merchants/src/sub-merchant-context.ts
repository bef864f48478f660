/** The sub-merchant a new session or payout is created for (from the X-Sub-Merchant-Code header). */
export interface SubMerchantRef {
  id: string;
  code: string;
  name: string;
  logoUrl: string | null;
}

export const SUB_MERCHANT_CODE_HEADER = 'X-Sub-Merchant-Code';

/** Which records of a PSP a list shows. */
export type SubMerchantScope =
  { kind: 'own' } | { kind: 'all' } | { kind: 'one'; subMerchantId: string };
