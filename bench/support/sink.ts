// The counting SMTP sink (sink-process.ts) in a process of its own, so that receiving mail does not
// share the event loop of what the bench measures.
import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

export interface Sink {
  child: ChildProcess;
  port: number;
  /** Messages received so far. */
  count(): Promise<number>;
}

export function startSink(): Promise<Sink> {
  const child = fork(join(__dirname, 'sink-process.js'), [], { stdio: 'inherit' });
  return new Promise((resolve) => {
    child.once('message', (m: { port: number }) =>
      resolve({
        child,
        port: m.port,
        count: () =>
          new Promise((r) => {
            child.once('message', (c: { count: number }) => r(c.count));
            child.send('count');
          }),
      }),
    );
  });
}
