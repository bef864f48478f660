import { ERROR_CODE_SPECS, ErrorCode } from './error-code';

/** One of several errors answered together (a batch's items), in `error.errors`. */
export interface ApiErrorItem {
  index: number;
  param: string;
  code: ErrorCode;
  message: string;
}

/**
 * The one exception domain code throws for anything a client should see.
 * The status comes from the code, so a code can never be sent with the wrong status.
 */
export class ApiException extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
    readonly errors?: ApiErrorItem[],
  ) {
    super(message);
    this.name = 'ApiException';
  }

  get status(): number {
    return ERROR_CODE_SPECS[this.code].status;
  }

  static invalid(param: string, message: string): ApiException {
    return new ApiException(ErrorCode.ParameterInvalid, message, param);
  }

  static missing(param: string): ApiException {
    return new ApiException(ErrorCode.ParameterMissing, `${param} is required.`, param);
  }

  static notFound(resource: string, id: string, param = 'id'): ApiException {
    return new ApiException(ErrorCode.ResourceMissing, `No such ${resource}: '${id}'.`, param);
  }
}
