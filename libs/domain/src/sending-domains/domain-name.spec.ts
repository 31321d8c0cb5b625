import { addressDomain, normaliseDomainName, selfAndParents } from './domain-name';

describe('normaliseDomainName', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['  news.example.com.  ', 'news.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
  ])('takes %j as %j', (input, out) => {
    expect(normaliseDomainName(input)).toBe(out);
  });

  it.each([
    'localhost',
    'example',
    '-bad.example.com',
    'bad-.example.com',
    'under_score.example.com',
    'user@example.com',
    'example.com/path',
    'exa mple.com',
    '192.0.2.1',
    '',
    `${'a'.repeat(64)}.example.com`,
    `${'a.'.repeat(127)}com`,
    42,
    null,
  ])('refuses %j', (input) => {
    expect(normaliseDomainName(input)).toBeNull();
  });
});

describe('addressDomain and selfAndParents', () => {
  it('finds the domain of an address and walks up to two labels', () => {
    expect(addressDomain('Someone@News.Example.com')).toBe('news.example.com');
    expect(addressDomain('no-domain')).toBeNull();
    expect(selfAndParents('a.news.example.com')).toEqual([
      'a.news.example.com',
      'news.example.com',
      'example.com',
    ]);
    expect(selfAndParents('example.com')).toEqual(['example.com']);
  });
});
