// Path parameter pipes: a UUID or a 422 naming the parameter.
import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { isUuid, ValidationFailedError } from '@app/domain';

/** A path id must be a UUID: anything else is a 422 naming the parameter, never a database error. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, meta: ArgumentMetadata): string {
    if (!isUuid(value)) {
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
