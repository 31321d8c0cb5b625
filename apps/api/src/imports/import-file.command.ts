// `mp-admin import-file`: a local CSV imported through ImportsService, followed on stderr.
import { INestApplicationContext } from '@nestjs/common';
import {
  ContactImport,
  DUPLICATE_HANDLING,
  DuplicateHandling,
  FieldMapping,
  ImportRunner,
  ImportsService,
  OrgId,
  ValidationFailedError,
} from '@app/domain';
import { toContactImportResponse } from './contact-import.response';

type Flags = Record<string, string | boolean | undefined>;

/** "Email=email,First Name=firstName" → mappings (the last `=` separates header and field). */
export function parseMapFlag(map: string): FieldMapping[] {
  const out: FieldMapping[] = [];
  for (const part of map.split(',')) {
    if (!part.trim()) continue;
    const at = part.lastIndexOf('=');
    if (at <= 0 || at === part.length - 1) {
      throw ValidationFailedError.field(
        'map',
        'type',
        `--map entries are "CSV header=serviceField", got "${part}"`,
      );
    }
    out.push({ csvHeader: part.slice(0, at).trim(), serviceField: part.slice(at + 1).trim() });
  }
  return out;
}

const FINISHED = ['completed', 'completed_with_errors', 'failed', 'cancelled'];

function bar(imp: ContactImport, startedAt: number): string {
  const width = 30;
  const rate = imp.processedRows / Math.max(0.001, (Date.now() - startedAt) / 1000);
  if (imp.status === 'queued') return 'queued, waiting for a worker...';
  if (imp.processedRows === 0 && imp.status === 'processing')
    return `reading the file: ${imp.totalRows.toLocaleString('en-US')} rows counted`;
  const total = Math.max(imp.totalRows, imp.processedRows, 1);
  const filled = Math.round((imp.processedRows / total) * width);
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ` +
    `${((imp.processedRows / total) * 100).toFixed(1).padStart(5)}% ` +
    `${imp.processedRows.toLocaleString('en-US')}/${total.toLocaleString('en-US')} rows, ` +
    `new ${imp.newCount.toLocaleString('en-US')}, duplicates ${imp.duplicateCount.toLocaleString('en-US')}, ` +
    `errors ${imp.errorCount.toLocaleString('en-US')}, ${Math.round(rate).toLocaleString('en-US')} rows/s`
  );
}

/**
 * `mp-admin import-file --org ID --file F --map "Email=email,First=firstName" [--list NAME]
 * [--tags a,b] [--duplicates skip|update] [--partial] [--via-worker]`: uploads the file through
 * ImportsService (the API's own path, not HTTP), starts the import and follows it with a progress
 * bar on stderr until it ends; the final import is the command's JSON on stdout.
 * By default the CLI also processes the import in-process (ImportRunner under the same lease as a
 * worker: if a worker takes the job first, the CLI only follows). --via-worker leaves the
 * processing to a running worker.
 */
export async function importFileCommand(
  app: INestApplicationContext,
  orgId: OrgId,
  flags: Flags,
  need: (name: string) => string,
): Promise<Record<string, unknown>> {
  const file = need('file');
  const mappings = parseMapFlag(need('map'));
  const duplicates = (flags.duplicates as string | undefined) ?? 'skip';
  if (!(DUPLICATE_HANDLING as readonly string[]).includes(duplicates)) {
    throw ValidationFailedError.field('duplicates', 'enum', '--duplicates must be skip or update');
  }
  const imports = app.get(ImportsService);
  const runner = app.get(ImportRunner);

  const uploaded = await imports.createFromLocalFile(orgId, file);
  const id = uploaded.import.id;
  process.stderr.write(
    `uploaded ${uploaded.import.fileName} as import ${id} (columns: ${uploaded.preview.headers.join(', ')})\n`,
  );
  await imports.start(orgId, id, {
    fieldMappings: mappings,
    duplicateHandling: duplicates as DuplicateHandling,
    allowPartialUpload: flags.partial === true,
    listName: (flags.list as string | undefined) ?? null,
    tags: typeof flags.tags === 'string' ? flags.tags.split(',').map((t) => t.trim()) : [],
    consentConfirmed: true,
  });

  let runError: unknown = null;
  const run =
    flags['via-worker'] === true
      ? Promise.resolve()
      : runner.run(orgId, id).then(
          () => undefined,
          (err: unknown) => {
            runError = err;
          },
        );

  const tty = process.stderr.isTTY === true;
  const began = Date.now();
  let lastLine = 0;
  let imp = await imports.get(orgId, id);
  while (!FINISHED.includes(imp.status)) {
    if (runError) throw runError;
    if (tty) process.stderr.write(`\r${bar(imp, began)}\x1b[K`);
    else if (Date.now() - lastLine >= 2000) {
      lastLine = Date.now();
      process.stderr.write(`${bar(imp, began)}\n`);
    }
    await new Promise((r) => setTimeout(r, 250));
    imp = await imports.get(orgId, id);
  }
  await run;
  process.stderr.write(`${tty ? '\r' : ''}${bar(imp, began)}${tty ? '\x1b[K' : ''}\n`);
  process.stderr.write(
    `import ${imp.status}${imp.errorReason ? `: ${imp.errorReason}` : ''}` +
      ` in ${((Date.now() - began) / 1000).toFixed(1)} s\n`,
  );
  return { import: toContactImportResponse(imp) };
}
