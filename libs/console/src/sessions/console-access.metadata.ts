import type { Request } from 'express';
import { Permission } from '@app/auth';
import { ConsoleSession } from './console-session';

export const CONSOLE_ACCESS = 'console:access';

export interface ConsoleAccess {
  /**
   * `signed_in` (default): password and second factor done. `second_factor`: a session between
   * the two steps (or an enrolment after accepting an invitation) is enough.
   */
  stage?: 'signed_in' | 'second_factor';
  /** A permission of the user's role at the session's merchant (merchant realm only). */
  permission?: Permission;
}

export type ConsoleRequest = Request & { consoleSession?: ConsoleSession };
