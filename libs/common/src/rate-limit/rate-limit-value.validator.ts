import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

const MAX_LIMIT = 1_000_000;

/** A rate-limit variable: a whole number from 1 to 1,000,000; the message names the variable. */
export function IsRateLimitValue(): PropertyDecorator {
  return (target, property) => {
    const message = `${String(property)} must be a whole number from 1 to ${MAX_LIMIT}.`;
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value,
    )(target, property);
    IsInt({ message })(target, property);
    Min(1, { message })(target, property);
    Max(MAX_LIMIT, { message })(target, property);
  };
}
