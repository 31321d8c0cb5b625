// Streams the multipart field `file` to disk within the import storage quota; maps multer errors.
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import {
  DomainError,
  fileTooLarge,
  IMPORT_MAX_BYTES,
  ImportUploads,
  OrgId,
  ValidationFailedError,
} from '@app/domain';
import type { Request, Response } from 'express';
import multer from 'multer';
import { catchError, from, Observable, switchMap } from 'rxjs';
import type { AuthedRequest } from '../http/decorators';

export const UPLOAD_FIELD = 'file';

/** The uploaded file as the controller gets it: multer's fields plus the quota reservation. */
export interface ReceivedCsv extends Express.Multer.File {
  reservationId: string;
}

function uploadError(err: unknown): Error {
  // Refusals of ImportUploads (quota, size) are already the answer.
  if (err instanceof DomainError) return err;
  if (err instanceof multer.MulterError) {
    switch (err.code) {
      case 'LIMIT_FILE_SIZE':
        return fileTooLarge();
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

/** multer's storage engine over ImportUploads: the quota is enforced while the file streams. */
class QuotaDiskStorage implements multer.StorageEngine {
  constructor(
    private readonly uploads: ImportUploads,
    private readonly orgId: OrgId,
  ) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    cb: (error?: unknown, info?: Partial<ReceivedCsv>) => void,
  ): void {
    this.uploads.receive(this.orgId, file.stream).then(
      (r) => cb(null, { path: r.path, size: r.bytes, reservationId: r.reservationId }),
      (err: unknown) => cb(err),
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, cb: (error: Error | null) => void): void {
    const { path, reservationId } = file as ReceivedCsv;
    this.uploads.discard(this.orgId, path, reservationId).then(
      () => cb(null),
      (err: Error) => cb(err),
    );
  }
}

@Injectable()
export class CsvUploadInterceptor implements NestInterceptor {
  constructor(private readonly uploads: ImportUploads) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const orgId = req.auth!.organizationId;
    // A file received but not turned into an import (the handler failed before taking it over).
    const cleanup = async () => {
      const file = req.file as ReceivedCsv | undefined;
      if (file?.path) await this.uploads.discard(orgId, file.path, file.reservationId);
    };
    const receive = async () => {
      const upload = multer({
        storage: new QuotaDiskStorage(this.uploads, orgId),
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
