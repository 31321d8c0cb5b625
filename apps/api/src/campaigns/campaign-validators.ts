// Field validators whose constraint names map onto the §4 rule names (see http/validation.ts).
import { ValidateBy, ValidationOptions } from 'class-validator';
import { parseMailbox } from '@app/domain';

/**
 * `a@b.c` or `Name <a@b.c>`, parsed by the send path's own mailbox parser (one validator for both:
 * a from that saves here is one the fan-out can send). Rule `email`.
 */
export const IsMailbox = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isEmail',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && parseMailbox(v) !== null,
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

/**
 * A finite number with at most two decimals. Rule `type`. Replaces class-validator's
 * `IsNumber({maxDecimalPlaces})`, which throws (a 500) on numbers JavaScript prints in exponent
 * form, such as 1e-7 or 5e-324.
 */
export const IsMoneyAmount = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isNumber',
      validator: {
        validate: (v: unknown) =>
          typeof v === 'number' && Number.isFinite(v) && Number(v.toFixed(2)) === v,
        defaultMessage: () => '$property must be a number with at most 2 decimal places',
      },
    },
    opts,
  );
