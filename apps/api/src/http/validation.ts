// One validation pipe: whitelisting, transformation, and 422 bodies naming each field and rule (§4).
import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationFailedError } from '@app/domain';

const RULES: Record<string, string> = {
  isDefined: 'required',
  isNotEmpty: 'required',
  isNotEmptyObject: 'required',
  arrayNotEmpty: 'required',
  arrayMinSize: 'minLength',
  arrayMaxSize: 'maxLength',
  isUuid: 'uuid',
  isEmail: 'email',
  isIn: 'enum',
  isEnum: 'enum',
  min: 'min',
  max: 'max',
  minLength: 'minLength',
  maxLength: 'maxLength',
  isUrl: 'url',
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
