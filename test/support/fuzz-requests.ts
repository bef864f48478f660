import fc from 'fast-check';
import type { OpenAPIObject } from '@nestjs/swagger';

/** One generated HTTP request, plain data so a failure can be printed and replayed. */
export interface FuzzRequest {
  operation: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Path with its query string, already percent-encoded (possibly badly, on purpose). */
  url: string;
  who: 'direct' | 'psp';
  headers: Record<string, string>;
  /** JSON text, or raw text that is not meant to be JSON. */
  body?: string;
}

interface SchemaObject {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  example?: unknown;
  items?: SchemaObject;
  allOf?: SchemaObject[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: SchemaObject;
  example?: unknown;
}

export interface Operation {
  name: string;
  method: FuzzRequest['method'];
  template: string;
  parameters: Parameter[];
  /** A body every field of which is its documented example: the starting point of mutations. */
  exampleBody?: Record<string, unknown>;
}

/** Ids that exist, so some requests get past the lookup to the code behind it. */
export interface KnownIds {
  sessionId: string;
  endpointId: string;
  /** The only endpoint the delete operation may hit, so the others keep theirs. */
  disposableEndpointId: string;
  eventId: string;
  subMerchantCode: string;
  /** Body fields whose documented example cannot succeed here (a URL that must resolve...). */
  workingValues: Record<string, unknown>;
}

function withWorkingValues(example: Record<string, unknown>, ids: KnownIds) {
  const known = Object.entries(ids.workingValues).filter(([field]) => field in example);
  return { ...example, ...Object.fromEntries(known) };
}

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = levels % 2 ? [value] : { a: value };
  return value;
};

function resolve(document: OpenAPIObject, schema: SchemaObject): SchemaObject {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  if (!ref) return schema;
  return document.components?.schemas?.[ref.split('/').pop() as string] as SchemaObject;
}

function exampleOf(document: OpenAPIObject, schema: SchemaObject): unknown {
  const resolved = resolve(document, schema);
  if (resolved.example !== undefined) return resolved.example;
  if (resolved.enum) return resolved.enum[0];
  if (resolved.properties) {
    return Object.fromEntries(
      Object.entries(resolved.properties).map(([key, value]) => [key, exampleOf(document, value)]),
    );
  }
  if (resolved.type === 'array' && resolved.items) return [exampleOf(document, resolved.items)];
  return resolved.type === 'integer' || resolved.type === 'number' ? 1 : 'x';
}

/** Every operation of the OpenAPI document, plus the hosted page (excluded from it). */
export function operationsOf(document: OpenAPIObject): Operation[] {
  const documented = Object.entries(document.paths).flatMap(([template, item]) =>
    (['get', 'post', 'patch', 'delete'] as const)
      .filter((method) => item[method])
      .map((method) => {
        const operation = item[method]!;
        const bodySchema = (
          operation.requestBody as { content?: Record<string, { schema: SchemaObject }> }
        )?.content?.['application/json']?.schema;
        return {
          name: operation.operationId ?? `${method} ${template}`,
          method,
          template,
          parameters: (operation.parameters ?? []) as Parameter[],
          exampleBody: bodySchema
            ? (exampleOf(document, bodySchema) as Record<string, unknown>)
            : undefined,
        };
      }),
  );
  // The page's stream is left out: for a real session it stays open by design.
  const hosted = ['/checkout/{id}', '/checkout/{id}/state', '/checkout/{id}/qr.svg'].map(
    (template) => ({
      name: `hosted page ${template}`,
      method: 'get' as const,
      template,
      parameters: [
        { name: 'id', in: 'path' as const },
        { name: 'locale', in: 'query' as const },
      ],
    }),
  );
  return [...documented, ...hosted];
}

// ---- Values ----------------------------------------------------------------------------------

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\ud83d\ude00',
  '0',
  '-1',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  'null',
  'true',
  '9'.repeat(400),
  '0.0000001',
  '.5',
  '0x10',
  '１０',
  'ＵＳＤ',
  '<script>alert(1)</script>',
  "'; DROP TABLE merchants; --",
  '%',
  '%00',
  '\\',
  '__proto__',
  '2026-W45',
  '2026-123',
  '20261101T100000Z',
  '2026-11-01',
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '0000-01-01T00:00:00+23:59',
  'cs_00000000000000000000000000000000',
  'T'.repeat(34),
  '0x' + '0'.repeat(40),
];

const NASTY_NUMBERS = [1e308, -1e308, 2 ** 53 + 1, -0, 0.1, 1e21, -1, 0, 4294967296, 1e-7];

/** Strings of every kind, including NUL and unpaired surrogates (`binary` units). */
const anyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ minLength: 300, maxLength: 5000 }),
);

/** Any JSON value, with a bias to the shapes that break validators. */
const anyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anyString },
  fc.constantFrom(...NASTY_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(anyString, { maxLength: 4 }),
  fc.dictionary(anyString, anyString, { maxKeys: 4 }),
  fc.integer({ min: 20, max: 120 }).map(nested),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Characters Node's HTTP client will put in a header (anything else it refuses to send). */
const headerValue = fc.oneof(
  fc.constantFrom('', ' ', 'shop-042', 'fuzz-shop', 'ÿ', '\t', 'a'.repeat(300), '%00'),
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xfe })
      .map((code) => String.fromCharCode(code === 0x7f ? 0xff : code)),
  }),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'garbage',
];

const RAW_BODIES = [
  '',
  '{',
  '{"a":',
  'null',
  '"string"',
  '42',
  '[]',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"amount":1e999999}',
  '{"pricing_amount":"10","pricing_amount":"20"}',
  '\ufeff{}',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  'a=1&b=2',
];

/** Percent-encodes the UTF-8 of any string (lone surrogates become U+FFFD, as a browser sends). */
const encode = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

const RAW_PATH_SEGMENTS = ['%', '%zz', '%ED%A0%80', '%C0%80', '%FF', '%00', '..', '%2F', '%2e%2e'];

function pathValue(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known).map(encode) },
    { weight: 3, arbitrary: anyString.map((text) => encode(text.slice(0, 600))) },
    fc.constantFrom(...RAW_PATH_SEGMENTS),
    fc
      .tuple(fc.constantFrom(...known), fc.constantFrom(...RAW_PATH_SEGMENTS))
      .map(([id, raw]) => `${encode(id)}${raw}`),
  );
}

const UNKNOWN_QUERY_NAMES = ['foo', '__proto__', 'constructor', 'page[size]', 'a[b][c]', '', '%00'];

function queryString(operation: Operation): fc.Arbitrary<string> {
  const documented = operation.parameters.filter((parameter) => parameter.in === 'query');
  const name = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom('', ...documented.map((parameter) => parameter.name)) },
    fc.constantFrom(...UNKNOWN_QUERY_NAMES),
  );
  const examples = documented.map((parameter) =>
    String(parameter.example ?? parameter.schema?.example ?? parameter.schema?.enum?.[0] ?? ''),
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('', ...examples) },
    { weight: 2, arbitrary: anyString.map((text) => text.slice(0, 600)) },
  );
  return fc
    .array(fc.tuple(name, value), { maxLength: 4 })
    .map((pairs) => pairs.filter(([key]) => key !== ''))
    .map((pairs) =>
      pairs.length ? `?${pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}` : '',
    );
}

function mutatedBody(example: Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = Object.keys(example);
  const field = fields.length ? fc.constantFrom(...fields) : fc.constant('unknown_field');
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(example) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(field, anyJsonValue)
        .map(([name, value]) => ({ ...example, [name]: value })),
    },
    fc.tuple(field, field, anyJsonValue, anyJsonValue).map(([a, b, va, vb]) => ({
      ...example,
      [a]: va,
      [b]: vb,
    })),
    field.map((name) => Object.fromEntries(Object.entries(example).filter(([k]) => k !== name))),
    fc.tuple(anyString, anyJsonValue).map(([name, value]) => ({ ...example, [name]: value })),
    fc.dictionary(anyString, anyJsonValue, { maxKeys: 5 }),
    anyJsonValue,
    fc.constant([example]),
  );
}

function body(operation: Operation, ids: KnownIds): fc.Arbitrary<string | undefined> {
  const raw = fc.constantFrom(...RAW_BODIES);
  if (!operation.exampleBody) {
    return fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, raw);
  }
  const example = withWorkingValues(operation.exampleBody, ids);
  return fc.oneof(
    { weight: 9, arbitrary: mutatedBody(example).map((value) => JSON.stringify(value)) },
    raw,
  );
}

function headers(operation: Operation, hasBody: boolean): fc.Arbitrary<Record<string, string>> {
  return fc
    .record(
      {
        idempotencyKey: fc.oneof({ weight: 3, arbitrary: fc.uuid() }, headerValue),
        subMerchantCode: fc.oneof(
          { weight: 5, arbitrary: fc.constant(undefined) },
          { weight: 2, arbitrary: fc.constant('fuzz-shop') },
          headerValue,
        ),
        contentType: fc.oneof(
          { weight: 6, arbitrary: fc.constant('application/json') },
          fc.constantFrom(...CONTENT_TYPES),
        ),
        acceptLanguage: fc.oneof(fc.constantFrom('de-CH,de;q=0.9', '*', ';q=', 'x'), headerValue),
      },
      { requiredKeys: [] },
    )
    .map((chosen) => ({
      ...(chosen.idempotencyKey !== undefined ? { 'Idempotency-Key': chosen.idempotencyKey } : {}),
      ...(chosen.subMerchantCode !== undefined
        ? { 'X-Sub-Merchant-Code': chosen.subMerchantCode }
        : {}),
      ...(hasBody ? { 'Content-Type': chosen.contentType ?? 'application/json' } : {}),
      ...(chosen.acceptLanguage !== undefined && operation.template.startsWith('/checkout')
        ? { 'Accept-Language': chosen.acceptLanguage }
        : {}),
    }));
}

function knownValues(operation: Operation, parameter: string, ids: KnownIds): string[] {
  if (operation.method === 'delete') return [ids.disposableEndpointId, ids.sessionId];
  switch (parameter) {
    case 'code':
      return [ids.subMerchantCode, 'shop-042'];
    case 'name':
      return ['TRON', 'ETHEREUM', 'tron'];
    default:
      return [ids.sessionId, ids.endpointId, ids.eventId, 'cs_3kTMd9Q2xLp8RvB1nY7cZa'];
  }
}

/** A request to one operation with some part of it made hostile. */
export function fuzzRequest(operation: Operation, ids: KnownIds): fc.Arbitrary<FuzzRequest> {
  const pathParameters = [...operation.template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  return fc
    .record({
      path: fc.tuple(...pathParameters.map((name) => pathValue(knownValues(operation, name, ids)))),
      query: queryString(operation),
      body: body(operation, ids),
      who: fc.constantFrom('direct' as const, 'psp' as const),
    })
    .chain((parts) =>
      headers(operation, parts.body !== undefined).map((chosenHeaders) => {
        let path = operation.template;
        pathParameters.forEach((name, index) => {
          path = path.replace(`{${name}}`, parts.path[index]);
        });
        return {
          operation: operation.name,
          method: operation.method,
          url: `${path}${parts.query}`,
          who: operation.template.startsWith('/v1/sub-merchants') ? 'psp' : parts.who,
          headers: chosenHeaders,
          body: parts.body,
        };
      }),
    );
}
