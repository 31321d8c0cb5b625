// `mp-admin add-provider` and `list-providers`: the provider-account routes (§17) without HTTP,
// through the same service and rules. Credentials come from a file or stdin, never from the
// command line (where the shell's history and the process list would keep them).
import { readFile } from 'node:fs/promises';
import {
  ChannelProviderService,
  MAX_PAGE_LIMIT,
  PROVIDER_CHANNELS,
  PROVIDER_NAMES,
  ValidationFailedError,
} from '@app/domain';
import {
  toChannelProviderResponse,
  toCreatedChannelProviderResponse,
} from '../channels/channel-provider.response';
import {
  AdminCommand,
  AdminOption,
  Flags,
  need,
  oneOf,
  opt,
  organizationId,
} from './admin-command';

const ORG: AdminOption = {
  type: 'string',
  value: 'ID',
  description: 'the organization id',
  required: true,
  id: true,
};

/** Where the credentials are read from: the whole of stdin, or standard input as a stream. */
export interface CredentialsInput {
  stdin: NodeJS.ReadableStream;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON object from an option's text; the message never quotes the text (it may hold secrets). */
function jsonObject(field: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ValidationFailedError.field(field, 'type', `${field} must be a JSON object`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ValidationFailedError.field(field, 'type', `${field} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

export async function readCredentials(
  flags: Flags,
  io: CredentialsInput = { stdin: process.stdin },
): Promise<Record<string, unknown>> {
  const file = opt(flags, 'credentials-file');
  const fromStdin = flags['credentials-stdin'] === true;
  if ((file === undefined) === !fromStdin) {
    throw ValidationFailedError.field(
      'credentials-file',
      'required',
      'give the credentials with --credentials-file PATH or --credentials-stdin (one of them)',
    );
  }
  let text: string;
  if (file !== undefined) {
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw ValidationFailedError.field(
        'credentials-file',
        'type',
        `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  } else {
    text = await readAll(io.stdin);
  }
  return jsonObject('credentials', text);
}

export const addProviderCommand: AdminCommand = {
  name: 'add-provider',
  summary: 'connect a provider account (Twilio, FCM, APNs, …) for a channel',
  description:
    'Connects a provider account to an organization, as POST /api/v1/user/channel-providers does. ' +
    'The credentials are a JSON object read from a file or from stdin (never from the command ' +
    'line), stored encrypted and never printed. The channel’s first provider becomes its default.',
  options: {
    org: ORG,
    channel: {
      type: 'string',
      value: 'C',
      description: PROVIDER_CHANNELS.join(', '),
      required: true,
    },
    provider: {
      type: 'string',
      value: 'P',
      description: PROVIDER_NAMES.join(', '),
      required: true,
    },
    name: {
      type: 'string',
      value: 'N',
      description: 'a name to tell accounts apart',
      required: true,
    },
    'credentials-file': {
      type: 'string',
      value: 'F',
      description: 'a file holding the credentials as a JSON object',
    },
    'credentials-stdin': { type: 'boolean', description: 'read the credentials JSON from stdin' },
    settings: { type: 'string', value: 'JSON', description: 'the settings as a JSON object' },
    default: { type: 'boolean', description: "make it the channel's default provider" },
  },
  examples: [
    `mp-admin add-provider --org $ORG_ID --channel sms --provider twilio --name "Twilio US" \\
       --credentials-file twilio.json --settings '{"from":"+14155550100"}' --json`,
    'mp-admin add-provider --org $ORG_ID --channel push --provider fcm --name Android ' +
      '--credentials-stdin --json < service-account.json',
  ],
  async run({ app }, flags) {
    const orgId = await organizationId(app, flags);
    const channel = oneOf(flags, 'channel', PROVIDER_CHANNELS);
    const provider = oneOf(flags, 'provider', PROVIDER_NAMES);
    const raw = await readCredentials(flags);
    // An FCM key file is the service-account JSON itself: it is taken as `serviceAccount`.
    const credentials =
      provider === 'fcm' && raw.type === 'service_account' ? { serviceAccount: raw } : raw;
    const settingsText = opt(flags, 'settings');
    const result = await app.get(ChannelProviderService).create(orgId, {
      channel,
      provider,
      name: need(flags, 'name'),
      credentials,
      settings: settingsText === undefined ? undefined : jsonObject('settings', settingsText),
      isDefault: flags.default === true ? true : undefined,
    });
    return { channelProvider: toCreatedChannelProviderResponse(result) };
  },
};

export const listProvidersCommand: AdminCommand = {
  name: 'list-providers',
  summary: "list an organization's provider accounts (never their credentials)",
  options: {
    org: ORG,
    channel: { type: 'string', value: 'C', description: 'only this channel' },
  },
  examples: ['mp-admin list-providers --org $ORG_ID --json'],
  async run({ app }, flags) {
    const orgId = await organizationId(app, flags);
    const channel =
      flags.channel === undefined ? undefined : oneOf(flags, 'channel', PROVIDER_CHANNELS);
    const page = await app
      .get(ChannelProviderService)
      .list(orgId, { channel }, { page: 1, limit: MAX_PAGE_LIMIT });
    return { channelProviders: page.items.map(toChannelProviderResponse), total: page.total };
  },
};
