// React Query keyed by the current organization, so switching organization never shows another
// organization's cached answer.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { QueryKey } from '@tanstack/react-query';
import { useSession } from '../auth/session';

export function useOrgQuery<T>(
  key: QueryKey,
  fetcher: () => Promise<T>,
  opts: {
    enabled?: boolean;
    refetchInterval?: number | false | ((data: T | undefined) => number | false);
  } = {},
) {
  const { organization } = useSession();
  return useQuery({
    queryKey: [organization?.id, ...key],
    queryFn: fetcher,
    placeholderData: keepPreviousData,
    enabled: Boolean(organization) && opts.enabled !== false,
    refetchInterval:
      typeof opts.refetchInterval === 'function'
        ? (q) => (opts.refetchInterval as (d: T | undefined) => number | false)(q.state.data)
        : opts.refetchInterval,
  });
}
