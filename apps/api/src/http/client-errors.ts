// The error envelope for requests Node's HTTP server refuses before any route runs.
import type { ErrorCode, FieldError } from '@app/domain/errors/domain-errors';
import { ValidationFailedError } from '@app/domain/errors/domain-errors';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Bytes that are not HTTP, headers over the size limit, a request that never finishes, an Expect
 * it cannot meet, HTTP/1.1 without Host: each still gets the error envelope of §4 with a code of
 * the spec's list (§16), not a bare status line.
 */
interface Refusal {
  status: number;
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
}

function invalid(status: number, field: string, rule: string, message: string): Refusal {
  return { status, code: 'E_VALIDATION_ERROR', message, errors: [{ field, rule, message }] };
}

const MALFORMED_HEADERS = invalid(422, 'headers', 'type', 'Malformed request headers');
const MALFORMED_BODY = invalid(422, 'body', 'type', 'Malformed request body');

/** Node's parser error codes → the answer; anything else is a malformed request (422). */
const REFUSALS: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: invalid(431, 'headers', 'max', 'Request headers are too large'),
  ERR_HTTP_REQUEST_TIMEOUT: invalid(408, 'request', 'max', 'The request was not received in time'),
  // A method token the parser does not know: no route answers it, like any unrouted method.
  HPE_INVALID_METHOD: { status: 404, code: 'E_ROW_NOT_FOUND', message: 'Route not found' },
  HPE_INVALID_URL: invalid(422, 'url', 'type', 'The request target is not a valid URL'),
  HPE_INVALID_HEADER_TOKEN: MALFORMED_HEADERS,
  HPE_INVALID_CONTENT_LENGTH: MALFORMED_HEADERS,
  HPE_UNEXPECTED_CONTENT_LENGTH: MALFORMED_HEADERS,
  HPE_INVALID_TRANSFER_ENCODING: MALFORMED_HEADERS,
  HPE_INVALID_CHUNK_SIZE: MALFORMED_BODY,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: MALFORMED_BODY,
};
const MALFORMED = invalid(422, 'request', 'type', 'Malformed HTTP request');

const EXPECT_REFUSED = invalid(422, 'expect', 'enum', 'Expect may only be 100-continue');

function envelope(r: Refusal): string {
  return JSON.stringify({
    success: false,
    message: r.message,
    code: r.code,
    ...(r.errors ? { errors: r.errors } : {}),
  });
}

/** The whole HTTP answer to a request Node's parser refused (`code` is Node's error code). */
export function clientErrorAnswer(code: string | undefined): Buffer {
  const refusal = (code && REFUSALS[code]) || MALFORMED;
  const body = envelope(refusal);
  return Buffer.from(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

export function installClientErrorHandler(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node's own handler: a peer that went away, or a socket with a response already on the
    // wire (writing another would corrupt it), gets no answer, only a close.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(err.code));
  });
  // Node answers an Expect other than 100-continue with a bare 417 unless this event is handled.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = envelope(EXPECT_REFUSED);
    res.writeHead(EXPECT_REFUSED.status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
  });
  // Node answers HTTP/1.1 without Host with a bare 400; requireHost below answers it instead.
  // The option is read from the server at every request.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}

/** HTTP/1.1 requires a Host header (RFC 9112 §3.2). */
export function requireHost(req: Request, _res: Response, next: NextFunction): void {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    return next(ValidationFailedError.field('host', 'required', 'The Host header is required'));
  }
  next();
}
