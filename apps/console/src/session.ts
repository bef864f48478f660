import { useQuery } from '@tanstack/react-query';
import type { Permission } from '../../../libs/auth/src/permissions';
import { ConsoleSession, fetchSession } from './api/console-api';

export const SESSION_QUERY_KEY = ['session'] as const;

/** The signed-in session (null when signed out), shared by every component through the cache. */
export function useSession() {
  return useQuery({ queryKey: SESSION_QUERY_KEY, queryFn: fetchSession, staleTime: 60_000 });
}

export function can(session: ConsoleSession | null | undefined, permission: Permission): boolean {
  return session?.permissions.includes(permission) ?? false;
}
