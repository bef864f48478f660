import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

// RFC 3339 `date-time` with upper-case `T` and `Z` (section 5.6 lets a format insist on that):
// seconds required, 1 to 9 fractional digits, and a `Z` or `±hh:mm` offset, always.
const RFC_3339_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

export const ISO_DATE_TIME_EXAMPLE = '2026-11-01T00:00:00Z';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Not Date.UTC: it reads years 0-99 as 1900-1999 (and 1900 is no leap year, 0000 is).
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/**
 * The instant an RFC 3339 date-time names, or null when the value is anything else: other ISO 8601
 * forms (week dates, ordinal dates, basic format, date-only, no offset), impossible calendar dates
 * (`2026-02-30`, which `new Date()` would silently roll over), or `24:00` and leap seconds, which a
 * JS Date cannot hold. Four-digit years keep every accepted instant inside PostgreSQL's range.
 */
export function parseIsoDateTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = RFC_3339_DATE_TIME.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [offsetHours, offsetMinutes] = [match[7], match[8]].map((part) => Number(part ?? 0));
  const calendarValid = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
  const clockValid = hour <= 23 && minute <= 59 && second <= 59;
  const offsetValid = offsetHours <= 23 && offsetMinutes <= 59;
  if (!calendarValid || !clockValid || !offsetValid) return null;
  const instant = new Date(value);
  return Number.isFinite(instant.getTime()) ? instant : null;
}

/** class-validator decorator: the value must be an RFC 3339 date-time with an offset. */
export function IsIsoDateTime(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isIsoDateTime',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => parseIsoDateTime(value) !== null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be an RFC 3339 date-time with seconds and an offset, ` +
          `such as ${ISO_DATE_TIME_EXAMPLE} or 2026-11-01T09:30:00+05:30.`,
      },
    });
}
