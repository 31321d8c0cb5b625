// The contacts table's statements.

/** Escapes the LIKE wildcards of a user's fragment. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (m) => '\\' + m);
}
