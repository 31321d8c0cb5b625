// fast-check arbitraries for hostile HTTP input: valid-shaped values derived from the OpenAPI
// schemas (so requests reach the services, not only the validation pipe), hostile values (wrong
// types, huge and odd strings, prototype keys, numbers JSON cannot hold), and the pieces of a
// request (path ids, query strings, raw bodies).
import fc from 'fast-check';
import { FIELD_OPERATORS } from '@app/domain/segments/segment-rules';
import { deref, OpenApiDocument, QueryParam, Schema } from './routes';
import type { ResourceKind } from './seed';

/** A JSON token written verbatim (-0, 1e309, 12345678901234567890...), which JSON.stringify cannot. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson tokens and own `__proto__` keys. */
export function toJsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  if (v && typeof v === 'object') {
    const parts: string[] = [];
    for (const k of Object.keys(v)) {
      const value = (v as Record<string, unknown>)[k];
      if (value === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${toJsonText(value)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** An object with the given entries as own properties, `__proto__` included. */
export function ownObject(entries: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return o;
}

/** Ids the fuzzer aims at, read when a case is generated (the pools grow as the run creates rows). */
export type IdPools = Record<ResourceKind, string[]>;

export interface ArbitraryContext {
  doc: OpenApiDocument;
  pools: IdPools;
  receiverUrl: string;
  csvHeaders: string[];
  orgId: string;
}

export function fromPool(pools: IdPools, kind: ResourceKind): fc.Arbitrary<string> {
  return fc.nat().map((n) => {
    const pool = pools[kind];
    return pool.length ? pool[n % pool.length] : '00000000-0000-4000-8000-000000000000';
  });
}

// ---- hostile values ---------------------------------------------------------------------------

const HUGE = 'x'.repeat(200_000);
const UNICODE = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202e\u202dabc',
  'e\u0301\u0301\u0301',
  '\u200b\u200c\u200d',
  '😀👩‍👩‍👧‍👦',
  '𝕏𝕐ℤ',
  'Ω≈ç√∫',
  '\u0085\u2028\u2029',
  '\r\n\r\nX-Injected: 1',
  '\t\v\f',
  '%00',
  '%s%n%x',
  '${jndi:ldap://x}',
  '{{7*7}}',
  "' OR '1'='1' --",
  '"; DROP TABLE contacts; --',
  '%_\\',
  '\\u0000',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '0x1F',
  ' 42 ',
  '-0',
  'true',
  '[]',
  '{}',
];
const RAW_NUMBERS = [
  '-0',
  '1e309',
  '-1e309',
  '1e-400',
  '123456789012345678901234567890',
  '-9007199254740993',
  '9007199254740993',
  '0.1e1',
  '1E+2',
  '1.7976931348623157e308',
  '5e-324',
].map((t) => new RawJson(t));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...UNICODE) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 400 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '   ') },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => HUGE.slice(0, n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2000 }).map((n) => '\u0000'.repeat(n)) },
);

export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...RAW_NUMBERS),
  fc.constantFrom(
    0,
    -1,
    1.5,
    -1.5,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    1e21,
    -1e21,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const protoKeys = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
);

/** A value of any JSON type, biased toward what breaks parsers, validators and SQL. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: hostileString },
    { weight: 3, arbitrary: hostileNumber },
    { weight: 2, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(protoKeys, fc.string({ maxLength: 10 })), tie('value')), {
          maxLength: 4,
        })
        .map(ownObject),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map((n) => deepArray(n)) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => new Array(n).fill(1)),
    },
  ),
})).value;

/** [[[...]]] n levels deep. */
export function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

/** {"a":{"a":...}} n levels deep. */
export function deepObject(levels: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** Free-form objects (customFields, deviceInfo): odd keys, any values. */
const freeObject: fc.Arbitrary<unknown> = fc
  .array(
    fc.tuple(
      fc.oneof(
        protoKeys,
        fc.string({ maxLength: 20 }),
        fc.constantFrom('a.b', 'a b', "k'ey", 'x'.repeat(500), ''),
      ),
      fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileValue),
    ),
    { maxLength: 6 },
  )
  .map(ownObject);

// ---- tracked HTML of hostile shape (§16) ---------------------------------------------------------

/** `unit` repeated to at least `chars` characters (one unit more at most). */
const repeatTo = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length));

/**
 * HTML shapes that cost a careless link rewriter (regular expressions, a DOM per recipient)
 * quadratic time or unbounded memory, each about `chars` characters long.
 */
export const PATHOLOGICAL_HTML: Record<string, (chars: number) => string> = {
  'one tag of <a <a <a': (n) => repeatTo('<a ', n),
  'attribute values running on': (n) => repeatTo('<a href="https://example.com/ title=\'t ', n),
  'links past the cap': (n) => repeatTo('<a href="https://example.com/p?a=1&amp;b=2">l</a>', n),
  'many </body>': (n) => repeatTo('</body>', n),
  'references in one href': (n) =>
    `<a href="https://example.com/?${repeatTo('&amp;&#x26;', n - 40)}">x</a>`,
  'links in comments and scripts': (n) =>
    repeatTo(
      '<!-- <a href="https://example.com/c"> --><script>"<a href=\'https://example.com/s\'>"</script>',
      n,
    ),
  'unterminated comment and quote': (n) =>
    `<!--<a href="https://example.com/">${repeatTo('<a href="https://example.com/ ', n - 40)}`,
};

/** `PATHOLOGICAL_HTML` of any shape, 4 KB to `maxChars`, with a link and a body around it. */
export function pathologicalHtml(maxChars: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...Object.keys(PATHOLOGICAL_HTML)),
      fc.integer({ min: 4096, max: maxChars }),
    )
    .map(
      ([shape, chars]) =>
        `<html><body><a href="https://example.com/x">x</a>${PATHOLOGICAL_HTML[shape](chars)}</body></html>`,
    );
}

// ---- valid-shaped values from the schemas ---------------------------------------------------

const TIMEZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Australia/Eucla'];
const PHONES = ['+14155550123', '+33612345678', '+447911123456', '+5511987654321', '+81312345678'];
const SERVICE_FIELDS = [
  'firstName',
  'lastName',
  'email',
  'phoneNumber',
  'whatsappNumber',
  'telegramUsername',
  'timezone',
  'language',
  'status',
  'notes',
  'tags',
  'customFields.plan',
  'ignore',
];

/** Addresses every validator here accepts (fc.emailAddress() covers RFC corners they refuse). */
export const simpleEmail = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9]{1,8})?$/),
    fc.stringMatching(/^[a-z0-9]{1,12}$/),
    fc.constantFrom('example.com', 'example.org', 'mail.example.net'),
  )
  .map(([local, sub, domain]) => `${local}@${sub}.${domain}`);

const isoDate = fc
  .date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

const mailbox = fc.oneof(
  { weight: 4, arbitrary: simpleEmail },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ unit: 'grapheme', maxLength: 20 }), simpleEmail)
      .map(([n, e]) => `${n.replace(/[<>"\\\r\n]/g, '').trim()} <${e}>`),
  },
  { weight: 2, arbitrary: fc.record({ email: simpleEmail, name: fc.string({ maxLength: 30 }) }) },
  { weight: 1, arbitrary: fc.emailAddress().filter((e) => e.length <= 254) },
);

/** The resource kind a uuid-valued field names, by its name. */
function kindOfField(name: string): ResourceKind | undefined {
  const n = name.replace(/Ids?$/, '').toLowerCase();
  const map: Record<string, ResourceKind> = {
    contact: 'contact',
    list: 'list',
    campaign: 'campaign',
    segment: 'segment',
    webhookendpoint: 'webhookEndpoint',
    tag: 'tag',
  };
  return map[n];
}

function stringFor(name: string, s: Schema, ctx: ArbitraryContext): fc.Arbitrary<unknown> {
  const format = s.format as string | undefined;
  const min = (s.minLength as number | undefined) ?? 0;
  const max = Math.min((s.maxLength as number | undefined) ?? 200, 200);
  if (format === 'uuid') {
    const kind = kindOfField(name);
    return kind
      ? fc.oneof(
          { weight: 3, arbitrary: fromPool(ctx.pools, kind) },
          { weight: 1, arbitrary: fc.uuid() },
        )
      : fc.uuid();
  }
  if (format === 'email') {
    return fc.oneof(
      { weight: 4, arbitrary: simpleEmail },
      { weight: 1, arbitrary: fc.emailAddress().filter((e) => e.length <= 254) },
    );
  }
  if (format === 'date-time') return isoDate;
  if (format === 'binary') return fc.string();
  switch (name) {
    case 'url':
      // Loopback only: the worker really delivers to whatever endpoint is created (a refused port
      // gives it retries to run), never to the internet.
      return fc.constantFrom(
        ctx.receiverUrl,
        `${ctx.receiverUrl}?x=1`,
        'http://127.0.0.1:9/refused',
      );
    case 'phoneNumber':
      return fc.constantFrom(...PHONES);
    case 'countryCode':
      return fc.constantFrom('US', 'FR', 'GB', 'BR', 'JP');
    case 'timezone':
      return fc.constantFrom(...TIMEZONES);
    case 'language':
      return fc.constantFrom('en', 'pt-BR', 'fr', 'zh-Hant-TW');
    case 'currency':
      return fc.constantFrom('USD', 'EUR', 'JPY', 'BRL');
    case 'serviceField':
      return fc.constantFrom(...SERVICE_FIELDS);
    case 'csvHeader':
      return fc.constantFrom(...ctx.csvHeaders);
    case 'from':
      return mailbox.map((m) => (typeof m === 'string' ? m : m.email));
    case 'key':
      return fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/);
    case 'value':
      return fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
    case 'name':
    case 'subject':
      return fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: Math.max(1, max) })
        .filter((v) => v.trim().length > 0);
    case 'content':
      return fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64'));
    case 'cursor':
      return fc.base64String({ maxLength: 40 });
  }
  return fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.max(min, max) });
}

function numberFor(s: Schema): fc.Arbitrary<number> {
  const min = (s.minimum as number | undefined) ?? -1_000_000;
  const max = (s.maximum as number | undefined) ?? 1_000_000;
  const lo = Math.ceil(Math.max(min, -2_147_483_648));
  const hi = Math.floor(Math.min(max, 2_147_483_647));
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: lo, max: hi }) },
    { weight: 1, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
  );
}

/** A segment rule tree: mostly well-formed, with the edges of §6 (depth, counts, value types). */
export function rulesArbitrary(ctx: ArbitraryContext): fc.Arbitrary<unknown> {
  const fields = Object.keys(FIELD_OPERATORS);
  const value = fc.oneof(
    isoDate,
    fc.tuple(isoDate, isoDate),
    fc.integer({ min: -10, max: 40_000 }),
    fc.string({ maxLength: 20 }),
    fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
    fc.array(fromPool(ctx.pools, 'list'), { maxLength: 3 }),
    fc.constantFrom('active', 'email', 'sms', 'bounced', 'verified'),
    hostileValue,
  );
  const condition = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(...fields).chain((field) =>
        fc.record(
          {
            field: fc.constant(field),
            operator: fc.constantFrom(...FIELD_OPERATORS[field]),
            value,
          },
          { requiredKeys: ['field', 'operator'] },
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          field: fc.oneof(
            {
              weight: 4,
              arbitrary: fc.stringMatching(/^[A-Za-z0-9_]{1,64}$/).map((k) => `customFields.${k}`),
            },
            { weight: 1, arbitrary: fc.string({ maxLength: 70 }).map((k) => `customFields.${k}`) },
          ),
          operator: fc.constantFrom('equals', 'contains', 'gt', 'lte', 'isEmpty', 'between'),
          value,
        },
        { requiredKeys: ['field', 'operator'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ field: hostileValue, operator: hostileValue, value }) },
  );
  const tree = fc.letrec<{ group: unknown }>((tie) => ({
    group: fc.record({
      operator: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('and', 'or') },
        { weight: 1, arbitrary: hostileValue },
      ),
      conditions: fc.array(fc.oneof({ depthSize: 'small', maxDepth: 7 }, condition, tie('group')), {
        minLength: 0,
        maxLength: 4,
      }),
    }),
  })).group;
  return fc.oneof(
    { weight: 8, arbitrary: tree },
    {
      weight: 1,
      arbitrary: fc.constant({
        operator: 'and',
        conditions: new Array(101).fill({ field: 'firstName', operator: 'isEmpty' }),
      }),
    },
    { weight: 1, arbitrary: fc.integer({ min: 5, max: 200 }).map((n) => nestedGroups(n)) },
    { weight: 1, arbitrary: hostileValue },
  );
}

function nestedGroups(levels: number): unknown {
  let g: unknown = { field: 'firstName', operator: 'isNotEmpty' };
  for (let i = 0; i < levels; i++) g = { operator: 'and', conditions: [g] };
  return g;
}

/** A send body of ordinary content. */
const sendBody = (ctx: ArbitraryContext): fc.Arbitrary<unknown> =>
  fc.record(
    {
      from: mailbox,
      to: fc.oneof(mailbox, fc.array(mailbox, { minLength: 1, maxLength: 3 })),
      cc: fc.array(simpleEmail, { maxLength: 2 }),
      bcc: simpleEmail,
      replyTo: mailbox,
      subject: fc.string({ unit: 'grapheme', maxLength: 80 }),
      html: fc.constantFrom('<p>Hi <a href="https://example.com/x">link</a></p>', '<b>ü😀</b>'),
      text: fc.string({ unit: 'grapheme', maxLength: 200 }),
      headers: fc.dictionary(
        fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/),
        fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
        { maxKeys: 2 },
      ),
      attachments: fc.array(
        fc.record({
          filename: fc.string({ minLength: 1, maxLength: 20 }),
          content: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
          contentType: fc.constantFrom('text/plain', 'application/pdf', 'image/png'),
        }),
        { maxLength: 2 },
      ),
      tags: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
      campaignId: fromPool(ctx.pools, 'campaign'),
      contactId: fromPool(ctx.pools, 'contact'),
      track: fc.record({ opens: fc.boolean(), clicks: fc.boolean() }),
    },
    { requiredKeys: ['from', 'to', 'subject', 'text'] },
  );

/**
 * Bodies whose fields depend on each other (a schema cannot say "listId or segmentId", "html or
 * text", "rules only when dynamic"): written out, so most generated bodies pass validation and
 * reach the services.
 */
const OVERRIDES: Record<string, (ctx: ArbitraryContext) => fc.Arbitrary<unknown>> = {
  CreateSegmentDto: (ctx) =>
    fc.oneof(
      fc.record(
        {
          name: fc.string({ minLength: 1, maxLength: 60 }),
          description: fc.option(fc.string({ maxLength: 100 }), { nil: null }),
          type: fc.constant('static'),
          contactIds: fc.array(fromPool(ctx.pools, 'contact'), { maxLength: 3 }),
        },
        { requiredKeys: ['name', 'type'] },
      ),
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 60 }),
        type: fc.constant('dynamic'),
        rules: rulesArbitrary(ctx),
      }),
    ),
  UpdateSegmentDto: (ctx) =>
    fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 60 }),
        description: fc.option(fc.string({ maxLength: 100 }), { nil: null }),
        rules: rulesArbitrary(ctx),
      },
      { requiredKeys: [] },
    ),
  CreateCampaignDto: (ctx) => campaignBody(ctx, ['name', 'subject', 'from']),
  UpdateCampaignDto: (ctx) => campaignBody(ctx, []),
  SendEmailDto: (ctx) =>
    fc.oneof(
      { weight: 30, arbitrary: sendBody(ctx) },
      // Tracked HTML of hostile shape, up to 256 KB (the fuzz battery sends megabytes).
      {
        weight: 1,
        arbitrary: fc.record({
          from: mailbox,
          to: simpleEmail,
          subject: fc.constant('Tracked'),
          html: pathologicalHtml(256 * 1024),
          track: fc.record({ opens: fc.boolean(), clicks: fc.constant(true) }),
        }),
      },
    ),
  StartImportDto: (ctx) =>
    fc
      .tuple(
        fc.shuffledSubarray(ctx.csvHeaders, { minLength: 1 }),
        fc.shuffledSubarray(
          SERVICE_FIELDS.filter((f) => f !== 'ignore'),
          {
            minLength: ctx.csvHeaders.length,
            maxLength: ctx.csvHeaders.length,
          },
        ),
        fc.record(
          {
            duplicateHandling: fc.constantFrom('skip', 'update'),
            allowPartialUpload: fc.boolean(),
            listName: fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: null }),
            tags: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
        fc.oneof(
          { weight: 9, arbitrary: fc.constant(true) },
          { weight: 1, arbitrary: fc.boolean() },
        ),
      )
      .map(([headers, fields, rest, consentConfirmed]) => ({
        fieldMappings: headers.map((csvHeader, i) => ({ csvHeader, serviceField: fields[i] })),
        ...rest,
        consentConfirmed,
      })),
};

function campaignBody(
  ctx: ArbitraryContext,
  required: Array<'name' | 'subject' | 'from' | 'channel'>,
): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.record(
        {
          name: fc.string({ minLength: 1, maxLength: 60 }).filter((v) => v.trim().length > 0),
          channel: fc.constant('email'),
          subject: fc
            .string({ minLength: 1, maxLength: 80 })
            .map((v) => v.replace(/[\r\n]/g, ' '))
            .filter((v) => v.trim().length > 0),
          from: mailbox.map((m) => (typeof m === 'string' ? m : m.email)),
        },
        { requiredKeys: required },
      ),
      fc.oneof(
        fc.record({ html: fc.constant('<p>Hello {{firstName}}</p>') }),
        fc.record({ text: fc.string({ minLength: 1, maxLength: 100 }) }),
        fc.record({ html: fc.constant('<p>x</p>'), text: fc.constant('x') }),
      ),
      fc.oneof(
        fc.record({ listId: fromPool(ctx.pools, 'list') }),
        fc.record({ segmentId: fromPool(ctx.pools, 'segment') }),
        fc.constant({}),
      ),
    )
    .map(([a, b, c]) => ({ ...a, ...b, ...c }));
}

/** A value the schema accepts (as far as a schema can say; field-specific rules may still refuse). */
export function validFor(
  ctx: ArbitraryContext,
  schema: Schema | undefined,
  name: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  const ref = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop()! : undefined;
  if (ref && OVERRIDES[ref]) return OVERRIDES[ref](ctx);
  const s = deref(ctx.doc, schema) ?? {};
  const nullable = s.nullable === true;
  const wrap = (a: fc.Arbitrary<unknown>) =>
    nullable
      ? fc.oneof({ weight: 5, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) })
      : a;
  if (Array.isArray(s.oneOf)) {
    return fc.oneof(...(s.oneOf as Schema[]).map((o) => validFor(ctx, o, name, depth + 1)));
  }
  if (Array.isArray(s.enum)) return wrap(fc.constantFrom(...(s.enum as unknown[])));
  if (name === 'rules') return rulesArbitrary(ctx);
  switch (s.type) {
    case 'string':
      return wrap(stringFor(name, s, ctx));
    case 'number':
    case 'integer':
      return wrap(numberFor(s));
    case 'boolean':
      return wrap(fc.boolean());
    case 'array': {
      const minLength = (s.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((s.maxItems as number | undefined) ?? 5, 5));
      return wrap(
        fc.array(validFor(ctx, s.items as Schema, name, depth + 1), { minLength, maxLength }),
      );
    }
    case 'object':
    default: {
      const props = (s.properties as Record<string, Schema> | undefined) ?? {};
      if (!Object.keys(props).length) {
        if (name === 'headers') {
          return wrap(
            fc.dictionary(
              fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/),
              fc.string({ maxLength: 40 }).map((v) => v.replace(/[\r\n]/g, '')),
              { maxKeys: 3 },
            ),
          );
        }
        return wrap(depth > 3 ? fc.constant({}) : freeObject);
      }
      const required = (s.required as string[] | undefined) ?? [];
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) shape[k] = validFor(ctx, v, k, depth + 1);
      return wrap(fc.record(shape, { requiredKeys: required.filter((k) => k in shape) }));
    }
  }
}

/** A body for a route: valid, valid with some fields made hostile, or hostile throughout. */
export function bodyFor(ctx: ArbitraryContext, schema: Schema): fc.Arbitrary<unknown> {
  const valid = validFor(ctx, schema, 'body');
  const s = deref(ctx.doc, schema) ?? {};
  const keys = Object.keys((s.properties as Record<string, unknown>) ?? {});
  const mutated = fc
    .tuple(
      valid,
      fc.array(fc.tuple(keys.length ? fc.constantFrom(...keys) : fc.constant('x'), hostileValue), {
        minLength: 1,
        maxLength: 3,
      }),
      fc.array(fc.tuple(fc.oneof(protoKeys, fc.string({ maxLength: 12 })), hostileValue), {
        maxLength: 2,
      }),
      fc.option(keys.length ? fc.constantFrom(...keys) : fc.constant('x'), { nil: undefined }),
    )
    .map(([base, replace, extra, drop]) => {
      const entries = new Map<string, unknown>(
        base && typeof base === 'object' && !Array.isArray(base) ? Object.entries(base) : [],
      );
      for (const [k, v] of replace) entries.set(k, v);
      if (drop !== undefined) entries.delete(drop);
      return ownObject([...entries.entries(), ...extra]);
    });
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 5, arbitrary: mutated },
    { weight: 1, arbitrary: hostileValue },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  );
}

// ---- request pieces ---------------------------------------------------------------------------

/** Percent-escapes that decode to invalid UTF-8, and raw bytes above 0x7f (sent as latin1). */
export const BAD_UTF8_ESCAPES = [
  '%FF',
  '%C3%28',
  '%A0%A1',
  '%E2%28%A1',
  '%F0%28%8C%BC',
  '%F8%A1%A1%A1%A1',
  '%C0%AF',
  '%ED%A0%80',
  '%E0%80%80',
  '%',
  '%zz',
  '%E2%82',
];
const RAW_BYTES = ['\u00ff', '\u00c3\u0028', '\u00e2\u0082', '\u0080'];

/** A path segment standing for an id: a real one, a random uuid, or something that is not an id. */
export function pathIdFor(pools: IdPools, kind: ResourceKind | undefined): fc.Arbitrary<string> {
  const real = kind ? fromPool(pools, kind) : fc.uuid();
  return fc.oneof(
    { weight: 6, arbitrary: real },
    { weight: 1, arbitrary: real.map((id) => id.toUpperCase()) },
    { weight: 2, arbitrary: fc.uuid() },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
        '0',
        '-1',
        '1e309',
        'NaN',
        'null',
        '__proto__',
        'constructor',
        '..',
        '.',
        '%2e%2e',
        '%2F',
        'a'.repeat(3000),
        '%00',
        '%F0%9F%98%80',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_UTF8_ESCAPES, ...RAW_BYTES) },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
        .map(encodeURIComponent),
    },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(safeEncode),
    },
  );
}

/** encodeURIComponent that survives lone surrogates (it throws on them). */
export function safeEncode(s: string): string {
  return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));
}

function queryValueString(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (v instanceof RawJson) return v.text;
  if (typeof v === 'object') return toJsonText(v);
  return String(v);
}

/** A query string (with its leading `?`, or empty) for the route's documented parameters. */
export function queryFor(ctx: ArbitraryContext, params: QueryParam[]): fc.Arbitrary<string> {
  const pair = (p: QueryParam) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<string[] | null>(null) },
      {
        weight: 5,
        arbitrary: validFor(ctx, p.schema, p.name).map((v) =>
          Array.isArray(v)
            ? v.map((x) => `${p.name}=${safeEncode(queryValueString(x))}`)
            : [`${p.name}=${safeEncode(queryValueString(v))}`],
        ),
      },
      {
        weight: 2,
        arbitrary: hostileValue.map((v) => [`${p.name}=${safeEncode(queryValueString(v))}`]),
      },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.string({ maxLength: 8 }), { minLength: 2, maxLength: 4 })
          .map((vs) => vs.map((x) => `${p.name}=${safeEncode(x)}`)),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          [`${p.name}[]=1`],
          [`${p.name}[a]=1`],
          [`${p.name}[__proto__][x]=1`],
          [`${p.name}`],
          [`${p.name}=`],
          [`${p.name}=%FF`],
          [`${p.name}=%C3%28`],
          [`${p.name}=\u00ff\u00fe`],
          [`${p.name}=%00`],
          [`${p.name}=${'9'.repeat(400)}`],
          [`${p.name}=-0`],
          [`${p.name}=1e309`],
          [`${p.name}=0x10`],
        ),
      },
    );
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string[]>([]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(protoKeys, fc.string({ minLength: 1, maxLength: 10 })),
          fc.string({ maxLength: 10 }),
        )
        .map(([k, v]) => [`${safeEncode(k)}=${safeEncode(v)}`]),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(['%FF=1'], ['=1'], ['&&&'], ['a=%'], ['__proto__[x]=1']),
    },
  );
  return fc.tuple(fc.tuple(...params.map(pair)), extra).map(([pairs, more]) => {
    const parts = [...pairs.flatMap((p) => p ?? []), ...more];
    return parts.length ? `?${parts.join('&')}` : '';
  });
}

/** Bytes that are not UTF-8 at all, inside an otherwise JSON-looking body. */
export const badUtf8Body: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.constantFrom(
      [0xff],
      [0xfe, 0xff],
      [0xc3, 0x28],
      [0xe2, 0x28, 0xa1],
      [0xed, 0xa0, 0x80],
      [0xc0, 0xaf],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0x80],
      [0x00],
    ),
    fc.constantFrom('name', 'firstName', 'subject', 'url', 'email'),
  )
  .map(([bytes, key]) =>
    Buffer.concat([Buffer.from(`{"${key}":"a`), Buffer.from(bytes), Buffer.from('b"}')]),
  );

/** Text that is not JSON, or JSON in a form the parser should refuse. */
export const malformedJson: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"a":}',
    "{'a':1}",
    '{"a":1,}',
    '[1,2,]',
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":undefined}',
    '\ufeff{"a":1}',
    '{"a":1}{"b":2}',
    '{"a":"\\ud800"}',
    '{"a":"\\x41"}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '',
    ' ',
    'null',
    '0',
    '"string"',
    'true',
  ),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.from('{"a":"b"}', 'utf16le')),
);

// ---- login bursts (§16) -----------------------------------------------------------------------

/**
 * A wrong password the login body accepts (1 to 1024 characters): odd characters, the longest
 * allowed, and ones shorter than the 12 a password must have (login must not tell them apart).
 */
export const wrongPassword: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 64 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 100 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'x',
        'x'.repeat(1024),
        '😀'.repeat(12),
        "' OR '1'='1' --",
        'correct horse battery staple',
      ),
    },
  )
  // NUL is refused in every string field (422), before any login is attempted.
  .filter((s) => s.length <= 1024 && !s.includes('\u0000'));

/** A login body for `email` with a wrong password (the accounts the bursts aim at do not exist). */
export function wrongLogin(email: string): fc.Arbitrary<string> {
  return wrongPassword.map((password) => JSON.stringify({ email, password }));
}
