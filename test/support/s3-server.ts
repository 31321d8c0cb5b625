// An S3-compatible store on loopback for the tests: s3rver, which speaks the S3 REST API (SigV4
// auth, multipart uploads, ranged reads) over files in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the objects: what a stolen disk of the store would show. */
  directory: string;
  /** STORAGE_URL and the credentials, as a process's environment takes them. */
  env: Record<string, string>;
  /** Stops answering (connections refused) and keeps the objects; `resume` serves them again. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** s3rver's fixed credentials. */
const KEY = 'S3RVER';

export async function startS3Server(bucket = 'mp-files', prefix = 'files'): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'mp-s3-'));
  const serve = (port: number) => {
    const s3 = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    // `silent` quiets its log's transport only, which a closing server removes: a request still
    // finishing as the store is paused would then have winston complain on the console.
    (s3 as unknown as { logger: { silent: boolean } }).logger.silent = true;
    return s3;
  };
  let server = serve(0);
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
    pause: async () => {
      const closed = server.close();
      // As a store going away does: the clients' kept-alive connections end too.
      (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
      await closed;
    },
    resume: async () => {
      server = serve(port);
      await server.run();
    },
    stop: async () => {
      await server.close().catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
