import { normaliseContactListQuery } from './contact-query';
import { uniqueTagNames } from './contact-tags.service';

describe('normaliseContactListQuery', () => {
  it('fills the defaults of §5 and nulls absent filters', () => {
    expect(normaliseContactListQuery({})).toEqual({
      page: 1,
      limit: 20,
      search: null,
      status: null,
      channel: null,
      sortBy: 'createdAt',
      sortOrder: 'desc',
    });
  });

  it('trims the search', () => {
    expect(normaliseContactListQuery({ search: '  ada ' }).search).toBe('ada');
    expect(normaliseContactListQuery({ search: '   ' }).search).toBeNull();
  });
});

describe('uniqueTagNames', () => {
  it('trims, drops empties and keeps the first spelling of case variants', () => {
    expect(uniqueTagNames(['VIP', ' vip ', '', 'Beta', 'beta '])).toEqual(['VIP', 'Beta']);
  });
});
