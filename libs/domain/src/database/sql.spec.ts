import type { DataSource } from 'typeorm';
import { escapeLike, join, query, raw, sql } from './sql';

/** A DataSource whose `query` answers what TypeORM's PostgreSQL runner answers for `command`. */
function fakeDb(command: 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE', rows: unknown[]) {
  const calls: { text: string | { name: string; text: string }; values: unknown[] }[] = [];
  const db = {
    query: (text: string | { name: string; text: string }, values: unknown[]) => {
      calls.push({ text, values });
      return Promise.resolve(
        command === 'UPDATE' || command === 'DELETE' ? [rows, rows.length] : rows,
      );
    },
  } as unknown as DataSource;
  return { db, calls };
}

describe('sql', () => {
  it('binds every value, arrays included, as numbered parameters', () => {
    const ids = ['a', 'b'];
    const q = sql`SELECT id FROM t WHERE organization_id = ${'org'} AND id = ANY(${ids}::uuid[])`;
    expect(q.text).toBe('SELECT id FROM t WHERE organization_id = $1 AND id = ANY($2::uuid[])');
    expect(q.values).toEqual(['org', ids]);
  });

  it('splices nested statements, joins and raw identifiers with their own values', () => {
    const where = join([sql`a = ${1}`, sql`b = ${2}`], ' AND ');
    const q = sql`SELECT * FROM ${raw('t')} WHERE ${where} LIMIT ${3}`;
    expect(q.text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2 LIMIT $3');
    expect(q.values).toEqual([1, 2, 3]);
  });
});

describe('escapeLike', () => {
  it('escapes LIKE wildcards and the escape character', () => {
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
  });
});

describe('query', () => {
  it.each(['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const)(
    'answers the rows of a %s',
    async (command) => {
      const rows = [{ id: 'x' }, { id: 'y' }];
      const { db, calls } = fakeDb(command, rows);
      await expect(query<{ id: string }>(db, sql`STATEMENT ${1}`)).resolves.toEqual(rows);
      expect(calls).toEqual([{ text: 'STATEMENT $1', values: [1] }]);
    },
  );

  it('answers no rows for an UPDATE that changed none', async () => {
    const { db } = fakeDb('UPDATE', []);
    await expect(query(db, sql`UPDATE t SET a = 1 RETURNING id`)).resolves.toEqual([]);
  });

  it('does not take two rows of a SELECT for the [rows, affected] shape', async () => {
    const rows = [{ n: 1 }, { n: 2 }];
    const { db } = fakeDb('SELECT', rows);
    await expect(query(db, sql`SELECT n FROM t`)).resolves.toEqual(rows);
  });

  it('hands a prepared statement to the driver by name and text', async () => {
    const { db, calls } = fakeDb('SELECT', [{ n: 1 }]);
    const q = sql`SELECT n FROM t WHERE id = ${7}`;
    await expect(query(db, q, { prepare: 'spec_by_name' })).resolves.toEqual([{ n: 1 }]);
    expect(calls).toEqual([
      { text: { name: 'spec_by_name', text: 'SELECT n FROM t WHERE id = $1' }, values: [7] },
    ]);
  });

  it('refuses a second text under a prepared name', async () => {
    const { db, calls } = fakeDb('SELECT', []);
    await query(db, sql`SELECT a FROM t`, { prepare: 'spec_one_text' });
    await expect(query(db, sql`SELECT b FROM t`, { prepare: 'spec_one_text' })).rejects.toThrow(
      'statement spec_one_text was prepared with another text',
    );
    expect(calls).toHaveLength(1);
  });
});
