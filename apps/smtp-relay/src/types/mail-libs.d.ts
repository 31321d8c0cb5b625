// The parts of mailparser's own header libraries (nodemailer family) the relay calls directly.
declare module 'libmime' {
  const libmime: {
    decodeWords(str: string): string;
    /** One header line, unfolded: its lower-case name and its raw value. */
    decodeHeader(line: string): { key: string; value: string };
  };
  export default libmime;
}

declare module '@zone-eu/mailsplit/lib/headers' {
  export default class Headers {
    constructor(headers: Buffer | string);
    /** The first header of that name, unfolded and decoded from its raw 8-bit bytes as binary. */
    getFirst(key: string): string;
    /** Every header line of that name as it stands (8-bit bytes as binary, folding kept). */
    get(key: string): string[];
    /** A first line starting `From ` (an mbox separator), set aside from the header lines. */
    mbox?: string;
  }
}
