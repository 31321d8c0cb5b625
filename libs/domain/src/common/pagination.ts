// The one pagination helper: spec meta (§4) with relative URLs that keep the other query parameters.

export interface PageMeta {
  total: number;
  perPage: number;
  currentPage: number;
  lastPage: number;
  firstPage: number;
  firstPageUrl: string;
  lastPageUrl: string;
  nextPageUrl: string | null;
  previousPageUrl: string | null;
}

/**
 * Highest page number a list accepts: beyond it the offset stops being an integer PostgreSQL can
 * take (page 1e308 made `OFFSET Infinity`, a 500). Ten million pages of 100 rows is 10^9 rows.
 */
export const MAX_PAGE = 10_000_000;

/** Most items a page holds (`limit`, 1 to 100). */
export const MAX_PAGE_LIMIT = 100;

export interface PageRequest {
  page: number;
  limit: number;
}

/** A page of results as returned by a service; the envelope interceptor turns it into data + meta. */
export class Page<T> {
  constructor(
    readonly items: T[],
    readonly total: number,
    readonly request: PageRequest,
    /** Extra meta keys (e.g. filters) merged next to the pagination fields. */
    readonly extraMeta: Record<string, unknown> = {},
  ) {}

  get offset(): number {
    return (this.request.page - 1) * this.request.limit;
  }

  map<U>(fn: (item: T) => U): Page<U> {
    return new Page(this.items.map(fn), this.total, this.request, this.extraMeta);
  }
}

export function pageOffset(req: PageRequest): number {
  return (req.page - 1) * req.limit;
}

type Query = Record<string, unknown>;

/** The query string of every page URL but the page number (which always comes last). */
function queryWithoutPage(query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (k === 'page' || v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
    else params.append(k, String(v));
  }
  return params.toString();
}

export function buildPageMeta(
  total: number,
  req: PageRequest,
  path: string,
  query: Query,
): PageMeta {
  const lastPage = Math.max(1, Math.ceil(total / req.limit));
  // Built once for the four URLs (what URLSearchParams#set('page') would append).
  const rest = queryWithoutPage(query);
  const prefix = rest ? `${path}?${rest}&page=` : `${path}?page=`;
  const pageUrl = (page: number) => prefix + String(page);
  return {
    total,
    perPage: req.limit,
    currentPage: req.page,
    lastPage,
    firstPage: 1,
    firstPageUrl: pageUrl(1),
    lastPageUrl: pageUrl(lastPage),
    nextPageUrl: req.page < lastPage ? pageUrl(req.page + 1) : null,
    previousPageUrl: req.page > 1 ? pageUrl(Math.min(req.page - 1, lastPage)) : null,
  };
}
