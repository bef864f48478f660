import { validateSync } from 'class-validator';
import { IsIsoDateTime, parseIsoDateTime } from './is-iso-date-time.validator';

describe('parseIsoDateTime', () => {
  it.each([
    ['2026-11-01T10:00:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T10:00:00.5Z', '2026-11-01T10:00:00.500Z'],
    ['2026-11-01T10:00:00.123456789Z', '2026-11-01T10:00:00.123Z'],
    ['2026-11-01T10:00:00+05:30', '2026-11-01T04:30:00.000Z'],
    ['2026-11-01T00:30:00-01:00', '2026-11-01T01:30:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T23:59:59Z', '2000-02-29T23:59:59.000Z'],
    ['0000-02-29T00:00:00Z', '0000-02-29T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999-23:59', '+010000-01-01T23:58:59.999Z'],
  ])('reads %s as %s', (text, instant) => {
    expect(parseIsoDateTime(text)?.toISOString()).toBe(instant);
  });

  it.each([
    '2026-W45',
    '2026-W45-1',
    '2026-123',
    '20261101T100000Z',
    '2026-11-01',
    '2026-11',
    '2026-11-01T10:00:00',
    '2026-11-01T10:00Z',
    '2026-11-01T10Z',
    '2026-11-01 10:00:00Z',
    '2026-11-01t10:00:00z',
    '2026-11-01T10:00:00.Z',
    '2026-11-01T10:00:00.1234567890Z',
    '2026-11-01T10:00:00+0530',
    '2026-11-01T10:00:00+05',
    '2026-11-01T10:00:00+24:00',
    '2026-11-01T10:00:00+05:60',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-11-00T00:00:00Z',
    '2026-11-01T24:00:00Z',
    '2026-11-01T23:60:00Z',
    '2026-12-31T23:59:60Z',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    ' 2026-11-01T10:00:00Z',
    '2026-11-01T10:00:00Z\n',
    '２０２６-11-01T10:00:00Z',
    '',
  ])('refuses %j', (text) => {
    expect(parseIsoDateTime(text)).toBeNull();
  });

  it.each([null, undefined, 1793527200000, {}, ['2026-11-01T10:00:00Z']])(
    'refuses the non-string %j',
    (value) => {
      expect(parseIsoDateTime(value)).toBeNull();
    },
  );
});

describe('@IsIsoDateTime', () => {
  class Window {
    @IsIsoDateTime()
    since: unknown;
  }

  const check = (since: unknown) => validateSync(Object.assign(new Window(), { since }));

  it('passes an RFC 3339 date-time and names the property and the format otherwise', () => {
    expect(check('2026-11-01T00:00:00Z')).toEqual([]);
    const [error] = check('2026-W45');
    expect(error.property).toBe('since');
    expect(Object.values(error.constraints ?? {})[0]).toBe(
      'since must be an RFC 3339 date-time with seconds and an offset, such as ' +
        '2026-11-01T00:00:00Z or 2026-11-01T09:30:00+05:30.',
    );
  });
});
