import { parseNextLink } from './pagination';

describe('parseNextLink', () => {
  it('finds rel="next" among the API\'s links', () => {
    const header =
      '</v1/payouts?page=1&page_size=2>; rel="first", ' +
      '</v1/payouts?page=3&page_size=2>; rel="next", </v1/payouts?page=9&page_size=2>; rel="last"';
    expect(parseNextLink(header)).toBe('/v1/payouts?page=3&page_size=2');
  });

  it('accepts unquoted and multi-valued rels, and a comma inside a URL', () => {
    expect(parseNextLink('<https://x/a?ids=1,2>; rel=next')).toBe('https://x/a?ids=1,2');
    expect(parseNextLink('</a>; rel="prefetch next"')).toBe('/a');
  });

  it('is null without a next page', () => {
    expect(parseNextLink(null)).toBeNull();
    expect(parseNextLink('</v1/payouts?page=1>; rel="first"')).toBeNull();
  });
});
