// The deep link of a contact's Telegram record (§17) with fake records and accounts: the link
// opens the chosen bot with a token that names this record for this bot only.
import { asOrgId } from '../common/org-id';
import type { ContactChannelsService } from '../contacts/contact-channels.service';
import { NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import type { ProviderAccounts } from './provider-accounts';
import { TelegramLinkTokens } from './telegram-link-token';
import { TelegramLinks } from './telegram-links.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CONTACT = '00000000-0000-4000-8000-0000000000c1';
const RECORD = '00000000-0000-4000-8000-0000000000f1';
const BOT = '00000000-0000-4000-8000-0000000000b1';

function setup() {
  const records = {
    get: jest.fn(async (_org: string, _contact: string, _channel: string, id: string) => ({
      id,
      contactId: CONTACT,
    })),
  };
  const accounts = {
    choose: jest.fn(async (_org: string, _channel: string, providerId?: string) => ({
      id: providerId ?? BOT,
      settings: { botUsername: '@acme_bot' },
    })),
  };
  const tokens = new TelegramLinkTokens([Buffer.alloc(32, 3)]);
  const links = new TelegramLinks(
    records as unknown as ContactChannelsService,
    accounts as unknown as ProviderAccounts,
    tokens,
  );
  return { links, records, accounts, tokens };
}

describe('TelegramLinks.link', () => {
  it('opens the default bot with a token naming the record for that bot', async () => {
    const { links, records, accounts, tokens } = setup();
    const link = await links.link(ORG, CONTACT, RECORD);
    expect(records.get).toHaveBeenCalledWith(ORG, CONTACT, 'telegram', RECORD);
    expect(accounts.choose).toHaveBeenCalledWith(ORG, 'telegram', undefined);
    expect(link.providerId).toBe(BOT);
    expect(link.botUsername).toBe('@acme_bot');
    const url = new URL(link.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://t.me/acme_bot');
    const token = url.searchParams.get('start')!;
    expect(tokens.verify(token, BOT)).toBe(RECORD);
    // The token is worth nothing for another bot.
    expect(tokens.verify(token, '00000000-0000-4000-8000-0000000000b2')).toBeNull();
  });

  it('uses the bot the caller names', async () => {
    const { links, accounts, tokens } = setup();
    const other = '00000000-0000-4000-8000-0000000000b2';
    const link = await links.link(ORG, CONTACT, RECORD, other);
    expect(accounts.choose).toHaveBeenCalledWith(ORG, 'telegram', other);
    expect(link.providerId).toBe(other);
    expect(tokens.verify(new URL(link.url).searchParams.get('start')!, other)).toBe(RECORD);
  });

  it("answers 404 for a record that is not the contact's, before choosing a bot", async () => {
    const { links, records, accounts } = setup();
    records.get.mockRejectedValueOnce(new NotFoundError('Telegram record'));
    await expect(links.link(ORG, CONTACT, RECORD)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(accounts.choose).not.toHaveBeenCalled();
  });

  it('answers the 422 on providerId when no bot is connected', async () => {
    const { links, accounts } = setup();
    accounts.choose.mockRejectedValueOnce(
      ValidationFailedError.field(
        'providerId',
        'required',
        'No active telegram provider is connected',
      ),
    );
    await expect(links.link(ORG, CONTACT, RECORD)).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'providerId' })],
    });
  });
});
