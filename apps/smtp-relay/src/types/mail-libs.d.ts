// The parts of mailparser's own header libraries (nodemailer family) the relay calls directly.
declare module 'libmime' {
  const libmime: { decodeWords(str: string): string };
  export default libmime;
}

declare module '@zone-eu/mailsplit/lib/headers' {
  export default class Headers {
    constructor(headers: Buffer | string);
    /** The first header of that name, unfolded and decoded from its raw 8-bit bytes as binary. */
    getFirst(key: string): string;
  }
}
