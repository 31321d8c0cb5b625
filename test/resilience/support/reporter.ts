// Collects the summary rows of every check and renders the table the suite prints and writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, SummaryRow } from './context';
import { log } from './util';

const fmt = (n: number) => n.toLocaleString('en-US');

export class SummaryReporter implements Reporter {
  readonly rows: SummaryRow[] = [];
  private readonly sections: { title: string; markdown: string }[] = [];

  record(row: SummaryRow): void {
    this.rows.push(row);
    const verdict = row.skipped ? 'SKIPPED' : row.passed ? 'PASS' : 'FAIL';
    log(
      `${verdict} ${row.section} / ${row.name}: requests ${row.requests}, errors ${row.errors}, lost ${row.lost}` +
        (row.notes ? ` — ${row.notes}` : ''),
    );
  }

  /** A block of markdown printed after the table (e.g. latency per route). */
  addSection(title: string, markdown: string): void {
    this.sections.push({ title, markdown });
  }

  get failed(): SummaryRow[] {
    return this.rows.filter((r) => !r.passed && !r.skipped);
  }

  table(): string {
    const lines = [
      '| Section | Check | Requests | Errors | Lost | Result | Notes |',
      '|---|---|---:|---:|---:|---|---|',
    ];
    for (const r of this.rows) {
      const result = r.skipped ? 'skipped' : r.passed ? 'pass' : '**FAIL**';
      const notes = (r.notes ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
      lines.push(
        `| ${r.section} | ${r.name} | ${fmt(r.requests)} | ${fmt(r.errors)} | ${fmt(r.lost)} | ${result} | ${notes} |`,
      );
    }
    const faults = this.rows.filter((r) => r.section === 'fault' && !r.skipped);
    const total = (k: 'requests' | 'errors' | 'lost') =>
      this.rows.reduce((sum, r) => sum + (r.skipped ? 0 : r[k]), 0);
    lines.push(
      `| **total** | faults survived ${faults.filter((r) => r.passed).length}/${faults.length}, checks passed ${
        this.rows.filter((r) => r.passed && !r.skipped).length
      }/${this.rows.filter((r) => !r.skipped).length} | ${fmt(total('requests'))} | ${fmt(total('errors'))} | ${fmt(
        total('lost'),
      )} | ${this.failed.length ? '**FAIL**' : 'pass'} | |`,
    );
    return lines.join('\n');
  }

  render(header: string): string {
    const parts = [header, '', this.table()];
    for (const s of this.sections) parts.push('', `### ${s.title}`, '', s.markdown);
    return parts.join('\n') + '\n';
  }

  write(file: string, header: string): string {
    const text = this.render(header);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return text;
  }
}
