// One validation pipe: whitelisting, transformation, and 422 bodies naming each field and rule (§4).
import { ValidationError, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateIf } from 'class-validator';
import { FieldError, ValidationFailedError } from '@app/domain';

const RULES: Record<string, string> = {
  isDefined: 'required',
  isNotEmpty: 'required',
  isNotEmptyObject: 'required',
  arrayNotEmpty: 'required',
  arrayMinSize: 'minLength',
  arrayMaxSize: 'maxLength',
  arrayUnique: 'unique',
  isUuid: 'uuid',
  isEmail: 'email',
  isIn: 'enum',
  isEnum: 'enum',
  min: 'min',
  max: 'max',
  minLength: 'minLength',
  maxLength: 'maxLength',
  isUrl: 'url',
  // ValidateNested on a value that is not an object or array: a wrong type.
  nestedValidation: 'type',
  whitelistValidation: 'unknown',
};

export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const constraints = e.constraints ?? {};
    const names = Object.keys(constraints);
    // Optional fields skip validation when absent, so an absent value that fails is a required one:
    // report "required" alone, not every rule it also fails.
    if (
      names.length &&
      (e.value === undefined || e.value === null) &&
      !names.includes('whitelistValidation')
    ) {
      // Keep a message the DTO wrote itself (class-validator's own start with the property name).
      const custom = names.map((n) => constraints[n]).find((m) => !m.startsWith(`${e.property} `));
      out.push({ field, rule: 'required', message: custom ?? `${field} is required` });
      continue;
    }
    for (const name of names) {
      out.push({
        field,
        rule: RULES[name] ?? (name.startsWith('is') ? 'type' : name),
        message: constraints[name],
      });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, field));
  }
  return out;
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // Values are read to tell a missing field; they are never put in the response.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new ValidationFailedError(flattenValidationErrors(errors)),
  });
}

/**
 * An optional field that cannot be cleared: absent skips its rules, null fails them (reported as
 * `required`). class-validator's IsOptional lets null through, which reached NOT NULL columns.
 */
export const IsOmittable = () => ValidateIf((_: object, v: unknown) => v !== undefined);

/**
 * A date field's conversion: an ISO string or an epoch number becomes a Date, anything else is left
 * for IsDate to refuse. Replaces class-transformer's `Type(() => Date)`, whose `new Date(value)`
 * threw on an object without a callable toString (a 500) and read `true` as 1970-01-01T00:00:00.001Z.
 * A date outside the years 0001–9999 becomes an invalid Date, which IsDate refuses too: ISO 8601
 * without an extended year (what every response prints) has no form for it, and one stored made
 * every later read of the record a 500.
 */
export const ToDate = () =>
  Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string' && typeof value !== 'number') return value;
    const date = new Date(value);
    const year = date.getUTCFullYear();
    return year >= 1 && year <= 9999 ? date : new Date(NaN);
  });
