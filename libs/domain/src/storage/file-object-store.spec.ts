import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { FileObjectStore } from './file-object-store';
import { ObjectNotFound } from './object-store';

describe(FileObjectStore.name, () => {
  let root: string;
  let store: FileObjectStore;
  const text = (key: string, range?: { start?: number; end?: number }) =>
    store.read(key, range).then((r) => buffer(r).then((b) => b.toString()));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'file-store-spec-'));
    store = new FileObjectStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes 0600 files in 0700 folders, reads ranges, sizes, moves', async () => {
    await store.write('a/b/one.csv', Readable.from(['hello ', 'world']));
    expect(statSync(join(root, 'a/b/one.csv')).mode & 0o777).toBe(0o600);
    for (const d of ['', 'a', 'a/b']) expect(statSync(join(root, d)).mode & 0o777).toBe(0o700);
    expect(await store.size('a/b/one.csv')).toBe(11);
    expect(await text('a/b/one.csv', { start: 6 })).toBe('world');
    expect(await text('a/b/one.csv', { start: 2, end: 4 })).toBe('ll');
    await store.move('a/b/one.csv', 'a/c/two.csv');
    expect(await store.size('a/b/one.csv')).toBeNull();
    expect(await text('a/c/two.csv')).toBe('hello world');
    await expect(store.read('a/b/one.csv')).rejects.toBeInstanceOf(ObjectNotFound);
  });

  it('leaves nothing behind when the body fails, and keeps the older content', async () => {
    await store.write('k/k.csv', Readable.from(['old']));
    async function* failing() {
      yield Buffer.from('new');
      throw new Error('refused');
    }
    await expect(store.write('k/k.csv', Readable.from(failing()))).rejects.toThrow('refused');
    expect(await text('k/k.csv')).toBe('old');
    expect((await store.list('k/')).map((o) => o.key)).toEqual(['k/k.csv']);
  });

  it('lists a folder with sizes and times, and deletes keys and folders', async () => {
    await store.write('p/x/1.csv', Readable.from(['1']));
    await store.write('p/2.csv', Readable.from(['22']));
    utimesSync(join(root, 'p/2.csv'), new Date(1000), new Date(1000));
    const listed = await store.list('p/');
    expect(listed.map((o) => [o.key, o.size])).toEqual([
      ['p/2.csv', 2],
      ['p/x/1.csv', 1],
    ]);
    expect(listed[0].lastModified.getTime()).toBe(1000);
    await store.delete('p/2.csv');
    await store.delete('p/missing.csv');
    await store.deletePrefix('p/x/');
    expect(await store.list('p/')).toEqual([]);
    expect(await store.list('nothing/')).toEqual([]);
  });

  it.each(['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a\\b', ''])('refuses the key %j', (key) => {
    expect(() => store.path(key)).toThrow(/outside the storage root/);
  });

  it('refuses a prefix that does not name a folder', async () => {
    await expect(store.deletePrefix('imports')).rejects.toThrow(/must end in/);
  });
});
