// What in the processes' output counts as a failure of a hostile-input section: an error- or
// fatal-level JSON log line (whatever prefix the harness puts before it), or the marks of an
// uncaught exception (Node's stack frames, "Uncaught", "unhandled rejection", "FATAL ERROR").
const UNCAUGHT =
  /uncaught|unhandled|FATAL ERROR|^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/i;

export function logProblems(lines: string[]): string[] {
  const problems: string[] = [];
  for (const line of lines) {
    const at = line.indexOf('{');
    let entry: { level?: unknown } | undefined;
    if (at >= 0) {
      try {
        entry = JSON.parse(line.slice(at)) as { level?: unknown };
      } catch {
        entry = undefined;
      }
    }
    if (entry && typeof entry === 'object') {
      if (entry.level === 'error' || entry.level === 'fatal') problems.push(line.slice(0, 600));
    } else if (UNCAUGHT.test(line)) {
      problems.push(line.slice(0, 600));
    }
  }
  return problems;
}
