import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '@app/domain';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id must be a UUID: anything else is a 422 naming the parameter, never a database error. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, meta: ArgumentMetadata): string {
    if (!UUID.test(value)) {
      throw ValidationFailedError.field(
        meta.data ?? 'id',
        'uuid',
        `${meta.data ?? 'id'} must be a UUID`,
      );
    }
    return value.toLowerCase();
  }
}

export const uuidParam = new UuidParamPipe();
