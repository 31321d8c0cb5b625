import { buildPageMeta } from './pagination';

describe('buildPageMeta', () => {
  it('builds the spec meta with relative URLs keeping other parameters', () => {
    const meta = buildPageMeta(45, { page: 2, limit: 20 }, '/api/v1/user/contacts', {
      page: '2',
      limit: '20',
      status: 'active',
    });
    expect(meta).toEqual({
      total: 45,
      perPage: 20,
      currentPage: 2,
      lastPage: 3,
      firstPage: 1,
      firstPageUrl: '/api/v1/user/contacts?limit=20&status=active&page=1',
      lastPageUrl: '/api/v1/user/contacts?limit=20&status=active&page=3',
      nextPageUrl: '/api/v1/user/contacts?limit=20&status=active&page=3',
      previousPageUrl: '/api/v1/user/contacts?limit=20&status=active&page=1',
    });
  });

  it('has null next on the last page and null previous on the first; an empty set has one page', () => {
    const meta = buildPageMeta(0, { page: 1, limit: 10 }, '/x', {});
    expect(meta.lastPage).toBe(1);
    expect(meta.nextPageUrl).toBeNull();
    expect(meta.previousPageUrl).toBeNull();
  });
});
