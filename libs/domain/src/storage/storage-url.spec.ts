import { defaultStorageUrl, parseStorageUrl } from './storage-url';

describe('parseStorageUrl', () => {
  it('reads the default, a folder under DATA_DIR', () => {
    expect(parseStorageUrl(defaultStorageUrl('/var/lib/mp'))).toEqual({
      kind: 'file',
      root: '/var/lib/mp/files',
    });
  });

  it('reads a file:// URL with an escaped path', () => {
    expect(parseStorageUrl('file:///srv/my%20files/')).toEqual({
      kind: 'file',
      root: '/srv/my files',
    });
  });

  it('reads an s3:// URL with its parameters', () => {
    expect(
      parseStorageUrl(
        's3://mp-imports/prod/eu?endpoint=http://127.0.0.1:4568&region=eu-west-1&forcePathStyle=true',
      ),
    ).toEqual({
      kind: 's3',
      bucket: 'mp-imports',
      prefix: 'prod/eu/',
      endpoint: 'http://127.0.0.1:4568',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
  });

  it('resolves dot segments of an s3:// prefix away', () => {
    expect(parseStorageUrl('s3://bucket/a/../b')).toMatchObject({ prefix: 'b/' });
  });

  it('defaults an s3:// URL to no prefix, us-east-1, AWS endpoint, virtual-hosted style', () => {
    expect(parseStorageUrl('s3://bucket.example')).toEqual({
      kind: 's3',
      bucket: 'bucket.example',
      prefix: '',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
    });
  });

  it.each([
    ['not a url', /file:\/\/ or s3:\/\//],
    ['http://example.com/x', /must use file:\/\/ or s3:\/\//],
    ['file://host/srv/x', /folder of this machine/],
    ['file:///srv/x?mode=1', /absolute path and nothing else/],
    ['s3://AB', /invalid bucket/],
    ['s3://key:secret@bucket/x', /credentials/],
    ['s3://bucket/x?endpoint=ftp://h', /not http/],
    ['s3://bucket/x?endpoint=nope', /not a URL/],
    ['s3://bucket/x?forcePathStyle=yes', /forcePathStyle/],
    ['s3://bucket/x?secret=1', /unknown parameter "secret"/],
    ['s3://bucket/x?region=EU%20West', /invalid region/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseStorageUrl(raw)).toThrow(message);
  });
});
