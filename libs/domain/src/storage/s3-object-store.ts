// The object store on an S3 bucket (s3://): objects encrypted by us (object-cipher.ts) whatever
// the bucket does, written in multipart uploads and read in ranges.
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { OnModuleDestroy } from '@nestjs/common';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  HEADER_BYTES,
  ObjectCipher,
  ObjectIntegrityError,
  plaintextSize,
  SEGMENT_BYTES,
  segmentCount,
  segmentOffset,
} from './object-cipher';
import { checkKey, ObjectNotFound, ObjectStore, StoredObject } from './object-store';
import type { StorageConfig } from './storage-url';

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

/** Multipart part size: the upload holds at most PART_BYTES × QUEUE_SIZE of a file in memory. */
const PART_BYTES = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

export class S3ObjectStore extends ObjectStore implements OnModuleDestroy {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(
    config: S3Config,
    private readonly cipher: ObjectCipher,
  ) {
    super();
    this.bucket = config.bucket;
    this.prefix = config.prefix;
    // Credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID…, profiles, roles).
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      // Checksums only where the API requires them: S3-compatible services differ in the rest.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }

  private full(key: string, folder = false): string {
    return this.prefix + checkKey(key, folder);
  }

  async write(key: string, body: Readable): Promise<void> {
    const sealed = this.cipher.encryptor();
    let failure: unknown;
    body.once('error', (err) => {
      failure = err;
      sealed.destroy(err);
    });
    body.pipe(sealed);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.full(key), Body: sealed },
      partSize: PART_BYTES,
      queueSize: QUEUE_SIZE,
    });
    try {
      await upload.done();
    } catch (err) {
      // The body's own error (a refused upload) rather than the SDK's wrapping of it.
      throw failure ?? err;
    }
    if (failure) throw failure;
  }

  /** The object's header and stored size, from one small ranged read. */
  private async head(key: string): Promise<{ header: Buffer; stored: number }> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.full(key),
          Range: `bytes=0-${HEADER_BYTES - 1}`,
        }),
      );
      const header = await buffer(res.Body as Readable);
      const stored = Number(/\/(\d+)$/.exec(res.ContentRange ?? '')?.[1] ?? res.ContentLength);
      if (header.length < HEADER_BYTES || !Number.isFinite(stored))
        throw new ObjectIntegrityError();
      return { header, stored };
    } catch (err) {
      if (notFound(err)) throw new ObjectNotFound(key);
      throw err;
    }
  }

  async read(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    const { header, stored } = await this.head(key);
    const segments = segmentCount(stored);
    const plain = plaintextSize(stored);
    const start = range.start ?? 0;
    const end = Math.min(range.end ?? plain, plain);
    if (end <= start) return Readable.from([]);
    const first = Math.floor(start / SEGMENT_BYTES);
    const last = Math.floor((end - 1) / SEGMENT_BYTES);
    const to = Math.min(segmentOffset(last + 1), stored) - 1;
    let res;
    try {
      res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.full(key),
          Range: `bytes=${segmentOffset(first)}-${to}`,
        }),
      );
    } catch (err) {
      if (notFound(err)) throw new ObjectNotFound(key);
      throw err;
    }
    const source = res.Body as Readable;
    const out = this.cipher.decryptor(header, {
      first,
      segments,
      skip: start - first * SEGMENT_BYTES,
      length: end - start,
    });
    source.once('error', (err) => out.destroy(err));
    out.once('close', () => source.destroy());
    return source.pipe(out);
  }

  async size(key: string): Promise<number | null> {
    try {
      const res = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.full(key) }),
      );
      return plaintextSize(Number(res.ContentLength));
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.full(from)
      .split('/')
      .map((p) => encodeURIComponent(p))
      .join('/');
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.full(to),
          CopySource: `${this.bucket}/${source}`,
        }),
      );
    } catch (err) {
      if (notFound(err)) throw new ObjectNotFound(from);
      throw err;
    }
    await this.delete(from);
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.full(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys = (await this.list(prefix)).map((o) => ({ Key: this.full(o.key) }));
    // DeleteObjects takes up to 1,000 keys.
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: keys.slice(i, i + 1000), Quiet: true },
        }),
      );
    }
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const found: StoredObject[] = [];
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.full(prefix, true),
          ContinuationToken: token,
        }),
      );
      for (const o of res.Contents ?? []) {
        const stored = Number(o.Size ?? 0);
        found.push({
          key: (o.Key ?? '').slice(this.prefix.length),
          // An object too short for its header is no object of ours: it reads as empty.
          size: stored >= HEADER_BYTES + 16 ? plaintextSize(stored) : 0,
          lastModified: o.LastModified ?? new Date(0),
        });
      }
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
    return found;
  }
}
