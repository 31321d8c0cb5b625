// Puts a failed call's 422 messages beside their inputs; whatever has no input of its own is
// returned as the message for the form's alert.
import { ApiError, errorMessage } from '../api/errors';

interface FormLike {
  setErrors(errors: Record<string, string>): void;
}

/**
 * `rename` maps an API field path (`emails.0.email`) to the form's field name (`email`). Returns the
 * message to show above the form, or null when every error landed beside an input.
 */
export function applyApiErrors(
  form: FormLike,
  err: unknown,
  fields: readonly string[],
  rename: Record<string, string> = {},
): string | null {
  if (!(err instanceof ApiError) || err.status !== 422) return errorMessage(err);
  const placed: Record<string, string> = {};
  const rest: string[] = [];
  for (const [field, message] of Object.entries(err.fieldErrors())) {
    const name = rename[field] ?? field;
    if (fields.includes(name)) placed[name] = message;
    else rest.push(message);
  }
  form.setErrors(placed);
  return rest.length ? rest.join('. ') : Object.keys(placed).length ? null : err.message;
}
