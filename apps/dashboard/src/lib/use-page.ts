// Page number and filters kept in the URL query, so back/forward and a shared link keep them.
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

export function useQueryState<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;
  const page = Math.max(1, Number(params.get('page')) || 1);

  /** Changes filters and goes back to the first page. */
  const setFilters = useCallback(
    (patch: Partial<Record<K, string>>) =>
      setParams((prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(patch) as [K, string | undefined][]) {
          if (v) next.set(k, v);
          else next.delete(k);
        }
        next.delete('page');
        return next;
      }),
    [setParams],
  );

  const setPage = useCallback(
    (p: number) =>
      setParams((prev) => {
        const next = new URLSearchParams(prev);
        if (p > 1) next.set('page', String(p));
        else next.delete('page');
        return next;
      }),
    [setParams],
  );

  return { values, page, setFilters, setPage };
}

/** Drops empty strings so they are not sent as query parameters. */
export function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== '' && v !== undefined && v !== null),
  ) as Partial<T>;
}
