// Requests Node's HTTP parser refuses before any route runs (bytes that are not HTTP in the request
// line, headers over the size limit, a request that never finishes) still get the error envelope of
// §4 instead of Node's bare status line.
import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

const ANSWERS: Record<string, [status: number, code: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'E_HEADERS_TOO_LARGE', 'Request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'E_REQUEST_TIMEOUT', 'Request timed out'],
};
const MALFORMED: [number, string, string] = [400, 'E_BAD_REQUEST', 'Malformed HTTP request'];

export function clientErrorAnswer(code: string | undefined): Buffer {
  const [status, errorCode, message] = (code && ANSWERS[code]) || MALFORMED;
  const body = JSON.stringify({ success: false, message, code: errorCode });
  return Buffer.from(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
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
}
