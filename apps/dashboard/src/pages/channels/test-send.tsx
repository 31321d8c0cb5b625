// "Send a test": one message through the account now (not queued, not in the message log), and
// the provider's answer in plain words.
import {
  Alert,
  Badge,
  Button,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import type { components } from '../../api/schema';
import type { ChannelProvider } from '../../api/types';
import { applyApiErrors } from '../../lib/form-errors';
import { optionsOf } from '../../lib/options';

type TestSendResult = components['schemas']['ChannelProviderTestResponse'];
type PushPlatform = NonNullable<components['schemas']['TestChannelProviderDto']['platform']>;

/** Each push platform a test may name, in the order the select offers them. */
const PLATFORM_LABELS: Record<PushPlatform, string> = {
  ios: 'iOS',
  android: 'Android',
  web: 'Web',
};

const OUTCOME: Record<TestSendResult['outcome'], { color: string; words: string }> = {
  accepted: { color: 'green', words: 'The provider accepted the message for delivery.' },
  rejected: {
    color: 'red',
    words: 'The provider refused this message (the credentials were fine).',
  },
  throttled: { color: 'yellow', words: 'The provider asks to slow down: try again later.' },
  unavailable: {
    color: 'yellow',
    words: 'The provider could not be reached or answered with a server error.',
  },
  unauthorized: {
    color: 'red',
    words:
      'The provider refused the credentials. After 3 refusals in a row the account becomes failing.',
  },
};

/** What the test's `To` is on each channel. */
const TO_HELP: Record<ChannelProvider['channel'], string> = {
  sms: 'A phone number in international format, e.g. +14155550100.',
  whatsapp: 'A WhatsApp number in international format, e.g. +14155550100.',
  telegram: 'The chat id of a person who has started the bot.',
  imessage: 'A phone number in international format or an Apple ID e-mail.',
  push: 'A device token of your app.',
};

function Answer({ r }: { r: TestSendResult }) {
  const o = OUTCOME[r.outcome];
  return (
    <Alert color={o.color} variant="light" data-testid="test-result" role="status">
      <Stack gap={4}>
        <Group gap="xs">
          <Badge color={o.color} variant="light" data-testid="test-outcome">
            {r.outcome}
          </Badge>
          <Text size="sm">{o.words}</Text>
        </Group>
        {r.providerMessageId && (
          <Text size="sm">
            The provider’s id for it: <code>{r.providerMessageId}</code>
          </Text>
        )}
        {(r.code || r.message) && (
          <Text size="sm">
            The provider said{r.code ? ` (code ${r.code})` : ''}: {r.message ?? '—'}
          </Text>
        )}
        {r.retryAfterMs != null && (
          <Text size="sm">It asks to wait {Math.ceil(r.retryAfterMs / 1000)} s.</Text>
        )}
        <Text size="sm">The account is now {r.providerStatus}.</Text>
      </Stack>
    </Alert>
  );
}

export function TestSend({ account }: { account: ChannelProvider }) {
  const queries = useQueryClient();
  const push = account.channel === 'push';
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<TestSendResult | null>(null);
  const form = useForm({ initialValues: { to: '', text: '', title: '', body: '', platform: '' } });
  const submit = form.onSubmit(async (v) => {
    setError(null);
    setResult(null);
    const content = push
      ? {
          ...(v.title ? { title: v.title } : {}),
          ...(v.body ? { body: v.body } : {}),
          ...(v.platform ? { platform: v.platform as PushPlatform } : {}),
        }
      : { text: v.text };
    try {
      const r = await dataOf(
        api.POST('/api/v1/user/channel-providers/{id}/test', {
          params: { path: { id: account.id } },
          body: { to: v.to.trim(), ...content },
        }),
      );
      setResult(r);
      // The answer may have changed the account's status.
      await queries.invalidateQueries();
    } catch (err) {
      setError(applyApiErrors(form, err, ['to', 'text', 'title', 'body', 'platform']));
    }
  });
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} noValidate aria-labelledby="test-send-title">
        <Stack>
          <div>
            <Title order={2} size="h4" id="test-send-title">
              Send a test
            </Title>
            <Text size="sm" c="dimmed">
              Sends one message through this account now, with its current credentials. It is not
              queued and not recorded in the message log.
            </Text>
          </div>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label="To"
            description={TO_HELP[account.channel]}
            required
            {...form.getInputProps('to')}
          />
          {push ? (
            <>
              <TextInput label="Title" {...form.getInputProps('title')} />
              <TextInput label="Body" {...form.getInputProps('body')} />
              <NativeSelect
                label="Platform"
                description={`Left as default: ${account.provider === 'apns' ? 'iOS' : 'Android'}.`}
                data={[{ value: '', label: 'Default' }, ...optionsOf(PLATFORM_LABELS)]}
                {...form.getInputProps('platform')}
              />
            </>
          ) : (
            <Textarea
              label="Text"
              required
              autosize
              minRows={2}
              maxLength={1600}
              {...form.getInputProps('text')}
            />
          )}
          <Group>
            <Button
              type="submit"
              loading={form.submitting}
              disabled={account.status === 'disabled'}
            >
              Send test
            </Button>
            {account.status === 'disabled' && (
              <Text size="sm" c="dimmed">
                A disabled account sends nothing: enable it first.
              </Text>
            )}
          </Group>
          {result && <Answer r={result} />}
        </Stack>
      </form>
    </Paper>
  );
}
