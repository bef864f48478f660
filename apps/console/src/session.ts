import { QueryClient, useQuery } from '@tanstack/react-query';
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

/**
 * Asks the server again now (after signing in, enrolling, switching merchant): a cached "signed
 * out" must not send the next page back to the sign-in form.
 */
export function reloadSession(queryClient: QueryClient): Promise<ConsoleSession | null> {
  return queryClient.fetchQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: fetchSession,
    staleTime: 0,
  });
}
