import { ApiException, ErrorCode } from '@app/common';
import { isUnsafeMethod } from '../csrf/csrf';
import { ConsoleSession } from './console-session';

/**
 * An operator viewing as a merchant reads and never writes (docs/operators.md): every unsafe
 * request made as the merchant is refused, whatever the viewer role would otherwise allow.
 */
export function assertViewAsReadOnly(method: string, session: ConsoleSession): void {
  if (session.viewAs && isUnsafeMethod(method)) {
    throw new ApiException(ErrorCode.PermissionDenied, 'Read-only view as merchant.');
  }
}
