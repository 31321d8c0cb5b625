// Field validators whose constraint names map onto the §4 rule names (see http/validation.ts).
import { ValidateBy, ValidationOptions } from 'class-validator';

/** `a@b.c` or `Name <a@b.c>`, without CR/LF (header injection). Rule `email`. */
const MAILBOX = /^(?:[^\r\n<>"]*<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/;

export const IsMailbox = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isEmail',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && MAILBOX.test(v.trim()),
        defaultMessage: () => '$property must be an email address or "Name <address>"',
      },
    },
    opts,
  );

/** No CR or LF (a header value). Rule `type`. */
export const IsSingleLine = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isSingleLine',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && !/[\r\n]/.test(v),
        defaultMessage: () => '$property must be a single line',
      },
    },
    opts,
  );

/** An ISO 4217-shaped code, three letters. Rule `enum`. */
export const IsCurrencyCode = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isIn',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && /^[A-Z]{3}$/.test(v),
        defaultMessage: () => '$property must be a 3-letter ISO 4217 currency code',
      },
    },
    opts,
  );
