// The chat providers and the generic `http` provider: their fields and where each value is found in
// the provider's console (Meta's App Dashboard and WhatsApp Manager, Telegram's @BotFather, Blooio's
// dashboard and API), as docs/channels/providers.md lists them.
import type { ConnectableProvider, ProviderSpec } from './provider-specs';

type ChatProvider = Extract<
  ConnectableProvider,
  'whatsapp-cloud' | 'telegram-bot' | 'blooio' | 'http'
>;

export const CHAT_PROVIDER_SPECS: Record<ChatProvider, ProviderSpec> = {
  'whatsapp-cloud': {
    provider: 'whatsapp-cloud',
    channel: 'whatsapp',
    label: 'WhatsApp Cloud API (WhatsApp)',
    defaultApiBase: 'https://graph.facebook.com',
    defaultRate: 80,
    callbackHelp:
      'In Meta’s App Dashboard, WhatsApp → Configuration → Webhook → Edit: paste this as the Callback URL and this account’s verify token as the Verify token, then Verify and save, and subscribe to the messages webhook field. Meta checks the URL with the verify token: set one in the settings below first.',
    fields: [
      {
        path: 'credentials.accessToken',
        label: 'Access token',
        help: 'A System user access token with the whatsapp_business_messaging permission: Meta Business Suite → Settings → Users → System users → Generate new token, for your app. The temporary token of WhatsApp → API Setup expires after 24 hours.',
        input: 'password',
        required: true,
      },
      {
        path: 'credentials.appSecret',
        label: 'App secret',
        help: 'App Dashboard → App settings → Basic → App secret (Show): 32 hex characters. Meta signs the callbacks with it (X-Hub-Signature-256).',
        input: 'password',
        required: true,
      },
      {
        path: 'settings.phoneNumberId',
        label: 'Phone number ID',
        help: 'App Dashboard → WhatsApp → API Setup, under the sending number: Phone number ID (digits; not the phone number itself).',
        input: 'text',
        required: true,
        placeholder: '106540352242922',
      },
      {
        path: 'settings.businessAccountId',
        label: 'WhatsApp Business Account ID',
        help: 'Same panel, WhatsApp Business Account ID; also in WhatsApp Manager → Account tools. Optional.',
        input: 'text',
      },
      {
        path: 'settings.verifyToken',
        label: 'Verify token',
        help: 'A string you choose. Paste it in the app’s webhook configuration (WhatsApp → Configuration) together with the callback URL shown after connecting: Meta checks the URL with it.',
        input: 'text',
      },
    ],
  },
  'telegram-bot': {
    provider: 'telegram-bot',
    channel: 'telegram',
    label: 'Telegram bot (Telegram)',
    defaultApiBase: 'https://api.telegram.org',
    defaultRate: 30,
    note: 'Nothing to paste in Telegram: when the account is saved, the platform tells Telegram where to send the bot’s updates (setWebhook). A bot has one webhook, so this replaces one set elsewhere.',
    fields: [
      {
        path: 'credentials.botToken',
        label: 'Bot token',
        help: 'In Telegram, talk to @BotFather: /newbot creates a bot and gives its token (123456789:AA…); /mybots → API Token shows it again for an existing bot.',
        input: 'password',
        required: true,
      },
      {
        path: 'settings.botUsername',
        label: 'Bot username',
        help: 'The username given to @BotFather, without @; it ends in “bot”. Contacts start the conversation through t.me/<username>.',
        input: 'text',
        required: true,
        placeholder: 'my_shop_bot',
      },
    ],
  },
  blooio: {
    provider: 'blooio',
    channel: 'imessage',
    label: 'Blooio (iMessage)',
    defaultApiBase: 'https://backend.blooio.com/v2/api',
    defaultRate: 1,
    callbackHelp:
      'Create a Blooio webhook pointing at this URL (Blooio dashboard, or POST /webhooks with webhook_url set to it and webhook_type all). Blooio returns its signing secret once: replace this account’s credentials with the API key and that signing secret, below.',
    fields: [
      {
        path: 'credentials.apiKey',
        label: 'API key',
        help: 'Blooio dashboard → API keys: create a key and copy it. It is sent as a bearer token.',
        input: 'password',
        required: true,
      },
      {
        path: 'credentials.signingSecret',
        label: 'Webhook signing secret',
        help: 'Blooio returns it once, when a webhook is created; callbacks are trusted only with it. The webhook must point at this account’s callback URL, shown on its page after connecting: connect first with a temporary value, then replace the credentials with the secret Blooio returns.',
        input: 'password',
        required: true,
      },
      {
        path: 'settings.fromNumber',
        label: 'From number',
        help: 'A number of the API key’s number pool to send from, in E.164 (+14155550100). Left empty, Blooio picks the sender from the pool itself.',
        input: 'text',
        placeholder: '+14155550100',
      },
    ],
  },
  http: {
    provider: 'http',
    channel: null,
    label: 'HTTP endpoint (any channel)',
    defaultApiBase: null,
    defaultRate: 10,
    callbackHelp:
      'Your service posts statuses and inbound messages here (each message’s request also carries it as statusCallbackUrl), signed with this account’s secret like the messages it receives.',
    fields: [
      {
        path: 'settings.url',
        label: 'Endpoint URL',
        help: 'Where each message is POSTed as JSON, signed with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), for a provider the platform has no adapter for.',
        input: 'text',
        required: true,
        placeholder: 'https://',
      },
      {
        path: 'credentials.secret',
        label: 'Signing secret',
        help: 'A Standard Webhooks secret (whsec_ and 24 to 64 bytes in base64). Left empty, one is generated and shown once, after connecting.',
        input: 'password',
      },
    ],
  },
};
