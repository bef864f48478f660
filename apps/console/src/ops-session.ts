import { useQuery } from '@tanstack/react-query';
import { fetchOpsSession } from './api/ops-api';

export const OPS_SESSION_QUERY_KEY = ['ops-session'] as const;

/** The signed-in operator (null when signed out), shared through the cache. */
export function useOpsSession() {
  return useQuery({
    queryKey: OPS_SESSION_QUERY_KEY,
    queryFn: fetchOpsSession,
    // A cached "signed out" is asked again at once: the sign-in form may have just succeeded.
    staleTime: (query) => (query.state.data ? 60_000 : 0),
  });
}
