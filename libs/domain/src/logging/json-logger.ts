// Structured JSON logs, one object a line, with the request id of the current request when there is one.
import { LoggerService } from '@nestjs/common';
import { requestContext } from './request-context';

const LEVELS = {
  debug: 10,
  verbose: 10,
  info: 20,
  log: 20,
  warn: 30,
  error: 40,
  fatal: 50,
} as const;
type Level = keyof typeof LEVELS;

/**
 * Nest's own start-up lines (one per module, controller and route: about a hundred for the api)
 * are debug lines here; each app logs one "ready" line of its own once it listens.
 */
const FRAMEWORK_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

export type LogSink = (line: string) => void;

let sink: LogSink = (line) => process.stdout.write(line + '\n');

/** Replaces where log lines go (tests capture them to prove no secret is logged). */
export function setLogSink(next: LogSink): void {
  sink = next;
}

export class JsonLogger implements LoggerService {
  private readonly min: number;

  constructor(
    private readonly service: string,
    level: 'debug' | 'info' | 'warn' | 'error' = 'info',
  ) {
    this.min = LEVELS[level];
  }

  private write(
    level: Level,
    message: unknown,
    context?: string,
    extra?: Record<string, unknown>,
  ): void {
    if (LEVELS[level] < this.min) return;
    const store = requestContext.getStore();
    const entry: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: level === 'log' ? 'info' : level,
      service: this.service,
      context,
      requestId: store?.requestId,
      organizationId: store?.organizationId,
    };
    if (message instanceof Error) {
      entry.msg = message.message;
      entry.err = { name: message.name, stack: message.stack };
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(entry, message);
    } else {
      entry.msg = String(message);
    }
    if (extra) Object.assign(entry, extra);
    sink(JSON.stringify(entry));
  }

  /** Nest passes (message, ...optionalParams) where the last string param is the context. */
  private split(params: unknown[]): { context?: string; extra?: Record<string, unknown> } {
    const context =
      typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const extra: Record<string, unknown> = {};
    for (const p of params) {
      if (typeof p === 'string') extra.stack = p;
      else if (p && typeof p === 'object') Object.assign(extra, p);
    }
    return { context, extra: Object.keys(extra).length ? extra : undefined };
  }

  log(message: unknown, ...params: unknown[]): void {
    const { context, extra } = this.split(params);
    const level = context && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info';
    this.write(level, message, context, extra);
  }
  error(message: unknown, ...params: unknown[]): void {
    const { context, extra } = this.split(params);
    this.write('error', message, context, extra);
  }
  warn(message: unknown, ...params: unknown[]): void {
    const { context, extra } = this.split(params);
    this.write('warn', message, context, extra);
  }
  debug(message: unknown, ...params: unknown[]): void {
    const { context, extra } = this.split(params);
    this.write('debug', message, context, extra);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    const { context, extra } = this.split(params);
    this.write('debug', message, context, extra);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    const { context, extra } = this.split(params);
    this.write('fatal', message, context, extra);
  }
}
