import { routeLabel, UNMATCHED_ROUTE } from './route-label';

describe('routeLabel', () => {
  it('is the matched pattern, with the router it is mounted on', () => {
    expect(routeLabel({ baseUrl: '', route: { path: '/v1/payouts/:id' } })).toBe('/v1/payouts/:id');
    expect(routeLabel({ baseUrl: '/pay', route: { path: '/:id' } })).toBe('/pay/:id');
  });

  it('is one label for every request no route matched', () => {
    expect(routeLabel({ baseUrl: '', route: undefined })).toBe(UNMATCHED_ROUTE);
    const catchAll = { path: '{/*splat}' };
    expect(routeLabel({ baseUrl: '', route: catchAll }, catchAll)).toBe(UNMATCHED_ROUTE);
  });
});
