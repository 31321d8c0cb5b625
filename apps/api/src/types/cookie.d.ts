// The part of `cookie` (jshttp, the parser express itself uses; the package ships no types) the
// api calls: the Cookie request header as a name → value map, first occurrence of a name wins.
declare module 'cookie' {
  export function parse(header: string): Record<string, string | undefined>;
}
