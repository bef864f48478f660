import { describeBadEncoding, findBadPathEncoding, findBadQueryEncoding } from './percent-encoding';

const ROUTES = [
  '/v1/checkout/sessions',
  '/v1/checkout/sessions/:id',
  '/v1/events/:id/deliveries',
  '/checkout/assets/:file',
  '/checkout/:id/qr.svg',
];

describe('describeBadEncoding', () => {
  it.each([
    ['%ZZ', "'%ZZ' is not a % followed by two hexadecimal digits"],
    ['cs_%E0%A4%A', "'%A' is not a % followed by two hexadecimal digits"],
    ['100%', "'%' is not a % followed by two hexadecimal digits"],
    ['%E0%A4', 'the bytes %E0%A4 are not UTF-8'],
    ['a%ED%A0%80b', 'the bytes %ED%A0%80 are not UTF-8'],
    ['%C0%80', 'the bytes %C0%80 are not UTF-8'],
    ['%FF'.repeat(9), 'the bytes %FF%FF%FF%FF%FF%FF%FF%FF... are not UTF-8'],
  ])('%s: %s', (raw, what) => {
    expect(describeBadEncoding(raw)).toBe(what);
  });

  it.each(['', 'cs_1', '%E0%A4%A4', 'a%2Fb', '%00', '%F0%9F%98%80', 'caf%C3%A9+x'])(
    'accepts %j',
    (raw) => {
      expect(describeBadEncoding(raw)).toBeNull();
    },
  );
});

describe('findBadPathEncoding', () => {
  it('names the path parameter of the route the path matches', () => {
    expect(findBadPathEncoding('/v1/checkout/sessions/%E0%A4%A', ROUTES)).toEqual({
      param: 'id',
      message:
        "id is not valid percent-encoding: '%A' is not a % followed by two hexadecimal digits.",
    });
    expect(findBadPathEncoding('/v1/Events/%FF/deliveries/', ROUTES)?.param).toBe('id');
    expect(findBadPathEncoding('/checkout/assets/%zz', ROUTES)?.param).toBe('file');
    expect(findBadPathEncoding('/checkout/%zz/qr.svg', ROUTES)?.param).toBe('id');
  });

  it('names nothing when no route matches, or the bad part is not a parameter', () => {
    expect(findBadPathEncoding('/v1/nothing/%zz', ROUTES)).toBeNull();
    expect(findBadPathEncoding('/v1/checkout/%zz/cs_1', ROUTES)).toBeNull();
    expect(findBadPathEncoding('/v1/checkout/sessions/%zz/more', ROUTES)).toBeNull();
  });
});

describe('findBadQueryEncoding', () => {
  it('names the query parameter whose value does not decode', () => {
    expect(findBadQueryEncoding('limit=10&search_text=%ZZ')).toEqual({
      param: 'search_text',
      message:
        "search_text is not valid percent-encoding: '%ZZ' is not a % followed by two hexadecimal digits.",
    });
    expect(findBadQueryEncoding('created%5Fafter=%E0%A4')).toEqual({
      param: 'created_after',
      message: 'created_after is not valid percent-encoding: the bytes %E0%A4 are not UTF-8.',
    });
    expect(findBadQueryEncoding('a=b=%zz')?.param).toBe('a');
  });

  it('names a parameter name that does not decode as sent', () => {
    expect(findBadQueryEncoding('%ZZ=1')).toEqual({
      param: '%ZZ',
      message:
        "The query parameter name %ZZ is not valid percent-encoding: '%ZZ' is not a % followed by two hexadecimal digits.",
    });
  });

  it('accepts a well-encoded query', () => {
    expect(findBadQueryEncoding('search_text=caf%C3%A9+noir&&limit=&x')).toBeNull();
  });
});
