import { scopedPath, setSubMerchantCode } from './http';

// Unit tests run in node: scopedPath only needs the page's origin from `window`.
Object.assign(globalThis, { window: { location: { origin: 'https://console.example' } } });

describe('scopedPath (the "Acting for" sub-merchant on list reads)', () => {
  afterEach(() => setSubMerchantCode(null));

  it('narrows every scoped list, payout batches included, to the chosen sub-merchant', () => {
    setSubMerchantCode('shop-7');
    for (const list of ['/v1/payouts', '/v1/payout-batches', '/v1/refunds']) {
      expect(scopedPath('GET', `${list}?include_sub_merchants=true&page_size=20`)).toBe(
        `${list}?page_size=20&sub_merchant_code=shop-7`,
      );
    }
  });

  it('leaves writes, other paths and the merchant itself unchanged', () => {
    setSubMerchantCode('shop-7');
    expect(scopedPath('POST', '/v1/payout-batches')).toBe('/v1/payout-batches');
    expect(scopedPath('GET', '/v1/payout-batches/pob_1')).toBe('/v1/payout-batches/pob_1');
    setSubMerchantCode(null);
    expect(scopedPath('GET', '/v1/payout-batches?page_size=20')).toBe(
      '/v1/payout-batches?page_size=20',
    );
  });
});
