import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

export interface IntegerSettingRange {
  min: number;
  max: number;
  /** What the minimum stands for, shown after it: 0 "(none)", "(off)", "(keep)". */
  minMeans?: string;
}

/** Environment variables are strings: "42" becomes 42; anything else is left for IsInt to refuse. */
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;

/**
 * A whole-number variable from min to max. Every refusal (not a whole number, below, above) has
 * the one message, naming the variable: "PORT must be a whole number from 1 to 65535.".
 */
export function IntegerSetting({ min, max, minMeans }: IntegerSettingRange): PropertyDecorator {
  return (target, property) => {
    const from = minMeans ? `${min} (${minMeans})` : `${min}`;
    const message = `${String(property)} must be a whole number from ${from} to ${max}.`;
    // Bottom-up, as the four stacked decorators ran, so the checks keep their order.
    applyDecorators(
      Max(max, { message }),
      Min(min, { message }),
      IsInt({ message }),
      Transform(toInteger),
    )(target, property);
  };
}
