// The envelope put on in the HTTP adapter: routed results wrapped, other replies untouched.
import type { ExecutionContext, INestApplication } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Page } from '@app/domain/common/pagination';
import { RESPONSE_MESSAGE } from './decorators';
import { installEnvelope, RawResponse, ResponseMessageGuard } from './envelope';

/** An app whose adapter records what reply() was given, with the envelope installed. */
function setUp() {
  const replies: Array<{ body: unknown; status?: number }> = [];
  const adapter = {
    reply: (_res: unknown, body: unknown, status?: number) => replies.push({ body, status }),
  };
  installEnvelope({ getHttpAdapter: () => adapter } as unknown as INestApplication);
  const guard = new ResponseMessageGuard(new Reflector());
  /** A request routed to `handler` (through the guard), then its result handed to reply(). */
  const answer = (handler: () => unknown, result: unknown, url = '/things?page=2&limit=1') => {
    const req = { originalUrl: url, query: { page: '2', limit: '1' } };
    const ctx = {
      getType: () => 'http',
      getHandler: () => handler,
      switchToHttp: () => ({ getRequest: () => req }),
    } as unknown as ExecutionContext;
    expect(guard.canActivate(ctx)).toBe(true);
    adapter.reply({ req }, result, 201);
    return replies[replies.length - 1];
  };
  return { adapter, replies, answer };
}

function handlerWithMessage(message?: string) {
  const handler = () => undefined;
  if (message) Reflect.defineMetadata(RESPONSE_MESSAGE, message, handler);
  return handler;
}

describe('installEnvelope', () => {
  it("wraps a routed handler's result with the route's message, keeping the status", () => {
    const { answer } = setUp();
    expect(answer(handlerWithMessage('Thing created'), { id: 1 })).toEqual({
      body: { success: true, message: 'Thing created', data: { id: 1 } },
      status: 201,
    });
  });

  it("answers 'OK' for a route without a message and null data for nothing", () => {
    const { answer } = setUp();
    expect(answer(handlerWithMessage(), undefined).body).toEqual({
      success: true,
      message: 'OK',
      data: null,
    });
  });

  it('turns a Page into data and meta with the extra meta keys', () => {
    const { answer } = setUp();
    const page = new Page(['b'], 3, { page: 2, limit: 1 }, { filters: { x: 1 } });
    const body = answer(handlerWithMessage('Things'), page).body as Record<string, unknown>;
    expect(body).toMatchObject({ success: true, message: 'Things', data: ['b'] });
    expect(body.meta).toMatchObject({
      total: 3,
      perPage: 1,
      currentPage: 2,
      nextPageUrl: '/things?limit=1&page=3',
      filters: { x: 1 },
    });
  });

  it('hands a RawResponse on as no body', () => {
    const { answer } = setUp();
    expect(answer(handlerWithMessage('Raw'), new RawResponse()).body).toBeUndefined();
  });

  it('leaves a reply for a request no route answered as it is', () => {
    const { adapter, replies } = setUp();
    adapter.reply({ req: {} }, { success: false }, 404);
    expect(replies[0]).toEqual({ body: { success: false }, status: 404 });
  });
});
