// The API's error envelope (§4) as an exception the pages show: its message, and for a 422 the
// message of each field, placed beside the form input of the same name.
import type { components } from './schema';

type ErrorResponse = components['schemas']['ErrorResponse'];

/** The envelope, or a non-envelope answer (a proxy's page) named by its status. */
export type ErrorBody = Omit<ErrorResponse, 'code'> & {
  code: ErrorResponse['code'] | `HTTP_${number}`;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }

  get code(): string {
    return this.body.code;
  }

  /** Field messages keyed by field name (the first message of each field). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.body.errors ?? []) out[e.field] ??= e.message;
    return out;
  }
}

/** What to show for any thrown value: the API's message, or the browser's for a network failure. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return 'Something went wrong';
}

/** Normalises a body that is not the envelope (a proxy's HTML page, an empty answer). */
export function toErrorBody(status: number, body: unknown): ErrorBody {
  const b = body as Partial<ErrorBody> | null;
  if (b && typeof b === 'object' && typeof b.message === 'string') {
    return { success: false, code: b.code ?? `HTTP_${status}`, ...b } as ErrorBody;
  }
  return { success: false, code: `HTTP_${status}`, message: `The server answered ${status}` };
}
