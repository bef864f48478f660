import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { fetchListPage } from '../api/list';

/**
 * A list paged by its Link header: the first page is `firstPath` (filters included); "Next"
 * follows the `next` link and "Previous" goes back along the pages already seen. A change of
 * filters (a new `firstPath`) starts again from the first page.
 */
export function usePagedList<T>(queryKey: readonly unknown[], firstPath: string, enabled = true) {
  const [trail, setTrail] = useState<{ first: string; pages: string[] }>({
    first: firstPath,
    pages: [firstPath],
  });
  const pages = trail.first === firstPath ? trail.pages : [firstPath];
  const current = pages[pages.length - 1];
  const query = useQuery({
    queryKey: [...queryKey, current],
    queryFn: () => fetchListPage<T>(current),
    enabled,
    placeholderData: keepPreviousData,
  });
  const next = query.data?.next ?? null;
  return {
    query,
    pageNumber: pages.length,
    hasPrevious: pages.length > 1,
    hasNext: next !== null && !query.isPlaceholderData,
    goNext: () => {
      if (next) setTrail({ first: firstPath, pages: [...pages, next] });
    },
    goPrevious: () => setTrail({ first: firstPath, pages: pages.slice(0, -1) }),
  };
}
