// `mp-admin operator-mail`: the mail kept for the operator (postmaster@ and abuse@ of the bounce
// domain): a list, or one message's raw bytes on stdout.
import { simpleParser } from 'mailparser';
import { DataSource } from 'typeorm';
import { InboundMessageRepository, NotFoundError, ValidationFailedError } from '@app/domain';
import { AdminCommand, opt, optInt, RAW_OUTPUT } from './admin-command';

export const operatorMailCommand: AdminCommand = {
  name: 'operator-mail',
  summary: 'list the mail sent to postmaster@ and abuse@, or print one message',
  description:
    'Mail to postmaster@ and abuse@ of the bounce domain is kept for the operator, encrypted. ' +
    'Without --id: the newest messages with their id, recipients, receivedAt, size, From and ' +
    'Subject. With --id: that message as received (RFC 5322 bytes) on stdout, for a mail ' +
    'reader or a file.',
  options: {
    limit: { type: 'string', value: 'N', description: 'how many of the newest (default 20)' },
    id: { type: 'string', value: 'ID', description: 'write this message to stdout', id: true },
  },
  examples: ['mp-admin operator-mail --limit 50', 'mp-admin operator-mail --id $ID > message.eml'],
  async run({ app }, flags) {
    const mail = new InboundMessageRepository(app.get(DataSource));
    const id = opt(flags, 'id');
    if (id !== undefined) {
      const [message] = await mail.operatorMail({ id });
      if (!message) throw new NotFoundError('Operator mail');
      return { [RAW_OUTPUT]: message.raw };
    }
    const limit = optInt(flags, 'limit') ?? 20;
    if (limit < 1 || limit > 1000) {
      throw ValidationFailedError.field('limit', 'max', '--limit must be between 1 and 1000');
    }
    const messages = await mail.operatorMail({ limit });
    return {
      messages: await Promise.all(
        messages.map(async (m) => {
          const parsed = await simpleParser(m.raw, { skipHtmlToText: true, skipTextToHtml: true });
          return {
            id: m.id,
            recipients: m.recipients,
            receivedAt: m.receivedAt,
            size: m.size,
            from: parsed.from?.text ?? null,
            subject: parsed.subject ?? null,
          };
        }),
      ),
    };
  },
};
