// Reads docker/compose.yml (or another compose file) as Docker Compose would: YAML merge keys, then `${VAR}`,
// `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}` and `$$` interpolated from a given environment.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { ROOT } from './support';

export interface ComposeService {
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  volumes?: (string | { type: string; source: string; target: string })[];
  depends_on?: Record<string, { condition: string }>;
  user?: string;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (m, name, op, arg) => {
      if (m === '$$') return '$';
      const value = env[name];
      const unset = op?.startsWith(':') ? !value : value === undefined;
      if (op?.endsWith('?') && unset) throw new Error(`compose: ${name} is required: ${arg}`);
      if (op?.endsWith('-') && unset) return arg as string;
      return value ?? '';
    },
  );
}

function walk(node: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((n) => walk(n, env));
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, env)]));
  }
  return node;
}

export function readCompose(
  env: Record<string, string | undefined>,
  file = 'docker/compose.yml',
): ComposeFile {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const parsed = load(text, { schema: CORE_SCHEMA.withTags(mergeTag) });
  return walk(parsed, env) as ComposeFile;
}

/** A service's environment as strings, the way the container sees it. */
export function serviceEnv(file: ComposeFile, service: string): Record<string, string> {
  const env = file.services[service]?.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** The container paths of the named volumes a service mounts, keyed by volume name. */
export function namedMounts(file: ComposeFile, service: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of file.services[service]?.volumes ?? []) {
    const [source, target] = typeof v === 'string' ? v.split(':') : [v.source, v.target];
    if (file.volumes && source in file.volumes) out[source] = target;
  }
  return out;
}
