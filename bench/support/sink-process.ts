// A counting SMTP sink in its own process, so the bench's sender and receiver do not share a CPU
// event loop. Speaks to its parent over IPC: {port} once listening, {count} on request.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let messages = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  disableReverseLookup: true,
  logger: false,
  closeTimeout: 100,
  onData(stream, _session, cb) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      messages++;
      cb();
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.server.address() as AddressInfo).port });
});
process.on('message', (m: string) => {
  if (m === 'count') process.send!({ count: messages });
  if (m === 'stop') server.close(() => process.exit(0));
});
