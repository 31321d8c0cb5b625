// Streams the multipart field `file` to disk (DATA_DIR/imports/<org>/incoming) with multer's disk
// storage, 200 MB at most, never buffering it; multer's errors become domain errors here.
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import {
  IMPORT_MAX_BYTES,
  ImportsService,
  PayloadTooLargeError,
  ValidationFailedError,
} from '@app/domain';
import type { Response } from 'express';
import multer from 'multer';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { catchError, from, Observable, switchMap } from 'rxjs';
import type { AuthedRequest } from '../http/decorators';

export const UPLOAD_FIELD = 'file';

function uploadError(err: unknown): Error {
  if (err instanceof multer.MulterError) {
    switch (err.code) {
      case 'LIMIT_FILE_SIZE':
        return new PayloadTooLargeError('The file is larger than 200 MB');
      case 'LIMIT_UNEXPECTED_FILE':
      case 'LIMIT_FILE_COUNT':
        return ValidationFailedError.field(
          err.field ?? UPLOAD_FIELD,
          'unknown',
          `Send exactly one file, in the multipart field "${UPLOAD_FIELD}"`,
        );
      default:
        return ValidationFailedError.field(
          'body',
          'type',
          `The upload was refused: ${err.message}`,
        );
    }
  }
  return ValidationFailedError.field(
    'body',
    'type',
    `The multipart body could not be read: ${(err as Error).message}`,
  );
}

@Injectable()
export class CsvUploadInterceptor implements NestInterceptor {
  constructor(private readonly imports: ImportsService) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    let temp: string | undefined;
    const cleanup = () => (temp ? rm(temp, { force: true }) : Promise.resolve());
    const receive = async () => {
      const dir = await this.imports.incomingDir(req.auth!.organizationId);
      const upload = multer({
        storage: multer.diskStorage({
          destination: dir,
          filename: (_req, _file, cb) => {
            const name = `${randomUUID()}.part`;
            temp = join(dir, name);
            cb(null, name);
          },
        }),
        limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024 },
      }).single(UPLOAD_FIELD);
      await new Promise<void>((resolve, reject) =>
        upload(req, res, (err?: unknown) => (err ? reject(uploadError(err)) : resolve())),
      );
      if (!req.file) {
        throw ValidationFailedError.field(
          UPLOAD_FIELD,
          'required',
          `${UPLOAD_FIELD} is required: send the CSV as the multipart/form-data field "${UPLOAD_FIELD}"`,
        );
      }
    };
    return from(
      receive().catch(async (err: unknown) => {
        await cleanup();
        throw err;
      }),
    ).pipe(
      switchMap(() => next.handle()),
      catchError(async (err: unknown) => {
        await cleanup();
        throw err;
      }),
    );
  }
}
