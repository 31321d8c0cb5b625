// docs/openapi.json matches the api as built (the dashboard's client types are generated from it):
// a route or DTO changed without `npm run openapi` fails here (the test command builds the api first).
// And every operation it lists documents its success body: a client typed from it knows `data`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Schema {
  $ref?: string;
  type?: string;
  items?: Schema;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** `data` names its model: a response class, an array of them, or null for an answer of none. */
function typedData(data: Schema | undefined): boolean {
  if (!data) return false;
  if (data.$ref) return true;
  if (data.type === 'array') return !!data.items?.$ref;
  return data.nullable === true && data.enum?.length === 1 && data.enum[0] === null;
}

/** What is wrong with an operation's success answers; empty when nothing is. */
function successBodyProblems(op: Operation): string[] {
  const success = Object.entries(op.responses ?? {}).filter(([status]) => status.startsWith('2'));
  if (!success.length) return ['no 2xx response'];
  const problems: string[] = [];
  for (const [status, response] of success) {
    if (status === '204') continue;
    const content = Object.entries(response.content ?? {});
    if (!content.length) problems.push(`${status} has no body schema`);
    for (const [type, media] of content) {
      const schema = media.schema;
      if (!schema) problems.push(`${status} ${type} has no schema`);
      else if (type === 'application/json' && !typedData(schema.properties?.data)) {
        problems.push(`${status} is not the envelope around a response model`);
      }
    }
  }
  return problems;
}

describe('OpenAPI export', () => {
  it('the committed document is what the current api build gives', () => {
    const script = join(__dirname, '../../scripts/export-openapi.js');
    let output = '';
    try {
      output = execFileSync(process.execPath, [script, '--check'], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`export-openapi --check failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
    expect(output).toContain('up to date');
  });

  it('every operation documents its success body (204 aside)', () => {
    const doc = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const undocumented: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const problems = successBodyProblems(op);
        if (problems.length) undocumented.push(`${method.toUpperCase()} ${path}: ${problems}`);
      }
    }
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    expect(undocumented).toEqual([]);
  });

  it('tells an untyped or missing success body from a typed one', () => {
    const envelope = (data: Schema) => ({
      content: {
        'application/json': { schema: { type: 'object', properties: { data } } },
      },
    });
    const ref = { $ref: '#/components/schemas/ThingResponse' };
    expect(successBodyProblems({ responses: { '200': envelope(ref) } })).toEqual([]);
    expect(
      successBodyProblems({ responses: { '200': envelope({ type: 'array', items: ref }) } }),
    ).toEqual([]);
    expect(
      successBodyProblems({ responses: { '200': envelope({ nullable: true, enum: [null] }) } }),
    ).toEqual([]);
    expect(successBodyProblems({ responses: { '204': {} } })).toEqual([]);
    expect(
      successBodyProblems({
        responses: { '200': { content: { 'text/csv': { schema: { type: 'string' } } } } },
      }),
    ).toEqual([]);

    expect(successBodyProblems({ responses: {} })).toEqual(['no 2xx response']);
    expect(successBodyProblems({ responses: { '200': {} } })).toEqual(['200 has no body schema']);
    expect(successBodyProblems({ responses: { '201': envelope({ type: 'object' }) } })).toEqual([
      '201 is not the envelope around a response model',
    ]);
    // The raw model the build infers for a status the envelope was not documented at.
    expect(
      successBodyProblems({
        responses: { '201': { content: { 'application/json': { schema: ref } } } },
      }),
    ).toEqual(['201 is not the envelope around a response model']);
  });
});
