// An S3-compatible store on loopback for the tests: s3rver, which speaks the S3 REST API (SigV4
// auth, multipart uploads, ranged reads) over files in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the objects: what a stolen disk of the store would show. */
  directory: string;
  /** STORAGE_URL and the credentials, as a process's environment takes them. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** s3rver's fixed credentials. */
const KEY = 'S3RVER';

export async function startS3Server(bucket = 'mp-files', prefix = 'files'): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'mp-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const query = new URLSearchParams({ endpoint, region: 'us-east-1', forcePathStyle: 'true' });
  return {
    endpoint,
    bucket,
    directory,
    env: {
      STORAGE_URL: `s3://${bucket}/${prefix}?${query.toString()}`,
      AWS_ACCESS_KEY_ID: KEY,
      AWS_SECRET_ACCESS_KEY: KEY,
      // The SDK's notice about future Node versions, once per process: not the tests' subject.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
