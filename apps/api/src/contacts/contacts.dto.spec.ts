import { ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '@app/domain';
import { createValidationPipe, flattenValidationErrors } from '../http/validation';
import { fastListContactsQuery, ListContactsQueryDto } from './contacts.dto';

// The general path alone (class-transformer + class-validator), as the pipe ran before.
const general = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validationError: { target: false, value: true },
  exceptionFactory: (errors) => new ValidationFailedError(flattenValidationErrors(errors)),
});
const pipe = createValidationPipe();
const meta = { type: 'query' as const, metatype: ListContactsQueryDto, data: '' };

async function outcome(p: ValidationPipe, value: unknown): Promise<unknown> {
  try {
    const out = await p.transform(value, meta);
    return { ok: out, proto: Object.getPrototypeOf(out) === ListContactsQueryDto.prototype };
  } catch (err) {
    return { error: (err as ValidationFailedError).errors ?? String(err) };
  }
}

describe('GET /contacts query fast path', () => {
  const accepted: Record<string, unknown>[] = [
    {},
    { limit: '100' },
    { page: '3', limit: '1' },
    { search: 'user500000@bench0.example' },
    { search: '  Ada  ' },
    { status: 'active', channel: 'sms', sortBy: 'lastName' },
    { sortBy: 'lastActivityAt', sortOrder: 'asc', page: '999999999' },
  ];
  const rejectedOrGeneral: Record<string, unknown>[] = [
    { limit: '0' },
    { limit: '101' },
    { limit: '007' },
    { limit: ' 5' },
    { limit: '1.5' },
    { page: '-1' },
    { page: '' },
    { search: '   ' },
    { search: 'x'.repeat(321) },
    { search: ['a', 'b'] },
    { status: 'ACTIVE' },
    { channel: 'fax' },
    { sortBy: 'toString' },
    { sortOrder: 'up' },
    { unknown: '1' },
    { toString: 'x' },
  ];

  it.each(accepted)('gives what class-validator gives for %j', async (q) => {
    expect(fastListContactsQuery(q)).toBeDefined();
    expect(await outcome(pipe, q)).toEqual(await outcome(general, q));
  });

  it.each(rejectedOrGeneral)('leaves %j to class-validator, with its answer', async (q) => {
    expect(fastListContactsQuery(q)).toBeUndefined();
    expect(await outcome(pipe, q)).toEqual(await outcome(general, q));
  });
});
