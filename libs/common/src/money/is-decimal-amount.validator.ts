import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { DecimalShape, describeAmountProblem } from './decimal-amount';

/** class-validator decorator for a positive decimal string of a bounded shape. */
export function IsDecimalAmount(shape: DecimalShape, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isDecimalAmount',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => describeAmountProblem(value, shape) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${describeAmountProblem(args.value, shape)}.`,
      },
    });
}
