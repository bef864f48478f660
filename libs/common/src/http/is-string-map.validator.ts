import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

export interface StringMapLimits {
  maxKeys: number;
  maxKeyLength: number;
  maxValueLength: number;
}

export const METADATA_LIMITS: StringMapLimits = {
  maxKeys: 50,
  maxKeyLength: 40,
  maxValueLength: 500,
};

/** Why a value is not a small flat map of strings, or null when it is. */
export function describeStringMapProblem(value: unknown, limits: StringMapLimits): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return 'must be an object of string keys to string values';
  }
  const entries = Object.entries(value);
  if (entries.length > limits.maxKeys) return `must have at most ${limits.maxKeys} keys`;
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > limits.maxKeyLength) {
      return `keys must be 1 to ${limits.maxKeyLength} characters`;
    }
    if (typeof item !== 'string') return `value of '${key}' must be a string`;
    if (item.length > limits.maxValueLength) {
      return `value of '${key}' must be at most ${limits.maxValueLength} characters`;
    }
  }
  return null;
}

export function IsStringMap(
  limits: StringMapLimits = METADATA_LIMITS,
  options?: ValidationOptions,
) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => describeStringMapProblem(value, limits) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${describeStringMapProblem(args.value, limits)}.`,
      },
    });
}
