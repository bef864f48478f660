import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { ApiErrorItem, ApiException, ErrorCode } from '@app/common';
import { CreatePayoutDto } from '../dto/create-payout.dto';

/**
 * A batch item validated as POST /v1/payouts validates its body (the same DTO and pipe options),
 * or the error the route would answer for it, with the item's index.
 */
export function validateBatchItem(
  item: unknown,
  index: number,
): { item: CreatePayoutDto } | { error: ApiErrorItem } {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return {
      error: {
        index,
        param: 'items',
        code: ErrorCode.ParameterInvalid,
        message: `items[${index}] must be a payout object.`,
      },
    };
  }
  const dto = plainToInstance(CreatePayoutDto, item);
  const errors = validateSync(dto, {
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    validationError: { target: false, value: true },
  });
  if (!errors.length) return { item: dto };
  return { error: toItemError(errors[0], index) };
}

/** The item's field and message, as the global validation pipe words a single payout's. */
function toItemError(error: ValidationError, index: number): ApiErrorItem {
  const constraints = error.constraints ?? {};
  const param = error.property;
  if (constraints.whitelistValidation) {
    return {
      index,
      param,
      code: ErrorCode.ParameterInvalid,
      message: `Unknown parameter: ${param}.`,
    };
  }
  if (error.value === undefined) {
    return { index, param, code: ErrorCode.ParameterMissing, message: `${param} is required.` };
  }
  const message = Object.values(constraints)[0] ?? `${param} is invalid.`;
  return { index, param, code: ErrorCode.ParameterInvalid, message };
}

/** An ApiException a single payout would answer, as the item's error. */
export function itemErrorOf(error: unknown, index: number): ApiErrorItem {
  if (!(error instanceof ApiException)) throw error;
  return { index, param: error.param ?? 'items', code: error.code, message: error.message };
}
