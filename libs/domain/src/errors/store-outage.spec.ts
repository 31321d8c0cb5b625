import { isStoreOutage } from './store-outage';

describe(isStoreOutage.name, () => {
  const withCode = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

  it('takes a store that cannot be reached, or answers that it is unavailable, for an outage', () => {
    expect(isStoreOutage(withCode('ECONNREFUSED'))).toBe(true);
    expect(isStoreOutage(withCode('ECONNRESET'))).toBe(true);
    expect(isStoreOutage(withCode('57P01'))).toBe(true);
    expect(isStoreOutage(new Error('CLUSTERDOWN The cluster is down'))).toBe(true);
    expect(isStoreOutage(new Error('NOSCRIPT No matching script. Please use EVAL.'))).toBe(true);
    const slowDown = Object.assign(new Error('Please reduce your request rate.'), {
      name: 'SlowDown',
      $metadata: { httpStatusCode: 503 },
    });
    expect(isStoreOutage(slowDown)).toBe(true);
  });

  it('takes what the store refused, or a fault of ours, for no outage', () => {
    const noSuchKey = Object.assign(new Error('The specified key does not exist.'), {
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    expect(isStoreOutage(noSuchKey)).toBe(false);
    expect(isStoreOutage(withCode('CSV_QUOTE_NOT_CLOSED'))).toBe(false);
    expect(isStoreOutage(withCode('23505'))).toBe(false);
    expect(isStoreOutage(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreOutage(null)).toBe(false);
  });
});
