// A real DNS server on loopback for e2e tests (§13: DNS_SERVERS): UDP and TCP on one port,
// authoritative for the records a test sets, NXDOMAIN for every other name. Point the platform at
// it with DNS_SERVERS=<server.address>.
import { createSocket, Socket as UdpSocket } from 'node:dgram';
import { createServer, Server, Socket } from 'node:net';
import * as packet from 'dns-packet';

export type DnsRecord =
  | { type: 'A' | 'AAAA'; data: string }
  | { type: 'MX'; data: { preference: number; exchange: string } }
  | { type: 'TXT'; data: string | string[] }
  | { type: 'CNAME'; data: string };

/** Largest UDP answer to a query without EDNS (RFC 1035); a larger one is truncated (TC). */
const UDP_PLAIN_MAX = 512;

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Response codes, in the low four bits of the flags. */
const FORMERR = 1;
const NXDOMAIN = 3;

export class TestDnsServer {
  private readonly zone = new Map<string, DnsRecord[]>();
  private udp?: UdpSocket;
  private tcp?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;
  /** Questions received, in order (`name TYPE`), and how many came over TCP. */
  readonly queries: string[] = [];
  tcpQueries = 0;

  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Replaces the records of `name` (all types); no records leave the name existing but empty. */
  set(name: string, records: DnsRecord[]): this {
    this.zone.set(key(name), records);
    return this;
  }

  /** Removes `name`: it answers NXDOMAIN again. */
  remove(name: string): this {
    this.zone.delete(key(name));
    return this;
  }

  async start(): Promise<this> {
    // TCP first on a free port, then UDP on the same one.
    this.tcp = createServer((socket) => this.serveTcp(socket));
    await new Promise<void>((resolve) => this.tcp!.listen(0, '127.0.0.1', resolve));
    this.port = (this.tcp.address() as { port: number }).port;
    this.udp = createSocket('udp4');
    this.udp.on('message', (msg, rinfo) => {
      const reply = this.answerUdp(msg);
      if (reply) this.udp!.send(reply, rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      this.udp!.once('error', reject);
      this.udp!.bind(this.port, '127.0.0.1', () => resolve());
    });
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.udp ? this.udp.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
  }

  private answer(query: packet.Packet): packet.Packet {
    const question = query.questions?.[0];
    const base = {
      id: query.id,
      type: 'response' as const,
      flags: packet.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & packet.RECURSION_DESIRED),
      questions: query.questions,
    };
    if (!question) return { ...base, flags: base.flags | FORMERR };
    this.queries.push(`${key(question.name)} ${question.type}`);
    const answers: packet.Answer[] = [];
    let name = key(question.name);
    // Follows CNAMEs inside the zone, as a recursive resolver would have.
    for (let hops = 0; hops < 8; hops++) {
      const records = this.zone.get(name);
      if (!records) {
        if (!answers.length) return { ...base, flags: base.flags | NXDOMAIN };
        break;
      }
      const cname = records.find((r) => r.type === 'CNAME');
      if (cname && question.type !== 'CNAME') {
        answers.push({ name, type: 'CNAME', ttl: 60, data: cname.data as string });
        name = key(cname.data as string);
        continue;
      }
      for (const r of records) {
        if (r.type !== question.type) continue;
        // A TXT value longer than one character-string (255 bytes) goes as several.
        const data =
          r.type === 'TXT'
            ? [r.data].flat().flatMap((t) => (t.match(/[\s\S]{1,255}/g) ?? ['']).map((c) => c))
            : r.data;
        answers.push({ name, type: r.type, ttl: 60, data } as packet.Answer);
      }
      break;
    }
    return { ...base, answers };
  }

  private answerUdp(msg: Buffer): Buffer | null {
    let query: packet.Packet;
    try {
      query = packet.decode(msg);
    } catch {
      return null;
    }
    const reply = packet.encode(this.answer(query));
    const opt = query.additionals?.find((a) => a.type === 'OPT') as
      { udpPayloadSize?: number } | undefined;
    if (reply.length <= (opt?.udpPayloadSize ?? UDP_PLAIN_MAX)) return reply;
    // Too large for UDP: the truncated flag sends the client to TCP.
    return packet.encode({
      id: query.id,
      type: 'response',
      flags: packet.AUTHORITATIVE_ANSWER | packet.TRUNCATED_RESPONSE,
      questions: query.questions,
    });
  }

  private serveTcp(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      // Each message is preceded by its length in two bytes (RFC 1035 §4.2.2).
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const msg = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        this.tcpQueries += 1;
        try {
          socket.write(packet.streamEncode(this.answer(packet.decode(msg))));
        } catch {
          socket.destroy();
        }
      }
    });
  }
}

/** A DNS server on loopback, started. */
export function startDnsServer(): Promise<TestDnsServer> {
  return new TestDnsServer().start();
}
