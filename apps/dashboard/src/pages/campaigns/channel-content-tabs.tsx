// The content of each channel of a campaign, one tab per channel in the campaign's order, each
// with its preview. A tab whose fields hold an error is marked.
import {
  ActionIcon,
  Button,
  Group,
  SegmentedControl,
  Stack,
  Tabs,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { IconAlertCircle, IconPlus, IconX } from '@tabler/icons-react';
import { type CampaignChannel, channelLabel, type TelegramParseMode } from './campaign-channels';
import { PushPreview, SmsPreview, WhatsappTemplatePreview } from './content-previews';
import { optionsOf } from '../../lib/options';

/** Each Telegram formatting, in the order the formatting control offers them. */
const PARSE_MODE_LABELS: Record<TelegramParseMode, string> = {
  HTML: 'HTML',
  MarkdownV2: 'MarkdownV2',
};

export interface ComposerValues {
  name: string;
  listId: string;
  segmentId: string;
  channels: CampaignChannel[];
  from: string;
  subject: string;
  text: string;
  html: string;
  smsText: string;
  waText: string;
  waTemplateName: string;
  waTemplateLanguage: string;
  waParameters: string[];
  tgText: string;
  tgParseMode: '' | TelegramParseMode;
  imText: string;
  pushTitle: string;
  pushBody: string;
}

/** The form fields of each channel's tab (for marking the tab that holds an error). */
export const CHANNEL_FIELDS: Record<CampaignChannel, string[]> = {
  email: ['from', 'subject', 'text', 'html'],
  sms: ['smsText'],
  whatsapp: ['waText', 'waTemplateName', 'waTemplateLanguage', 'waParameters'],
  telegram: ['tgText', 'tgParseMode'],
  imessage: ['imText'],
  push: ['pushTitle', 'pushBody'],
};

type Form = UseFormReturnType<ComposerValues>;

/** Whether `errors` (form field → message) hold one of the channel's fields. */
export function hasError(errors: Record<string, unknown>, channel: CampaignChannel): boolean {
  return Object.keys(errors).some((k) =>
    CHANNEL_FIELDS[channel].some((f) => k === f || k.startsWith(`${f}.`)),
  );
}

export function ChannelContentTabs(props: {
  form: Form;
  channels: CampaignChannel[];
  active: CampaignChannel;
  onActive: (c: CampaignChannel) => void;
}) {
  const { form, channels } = props;
  return (
    <Tabs
      value={props.active}
      onChange={(v) => v && props.onActive(v as CampaignChannel)}
      keepMounted={false}
    >
      <Tabs.List aria-label="Content by channel">
        {channels.map((c) => (
          <Tabs.Tab
            key={c}
            value={c}
            rightSection={
              hasError(form.errors, c) ? (
                <IconAlertCircle size={14} color="var(--mantine-color-red-8)" aria-label="error" />
              ) : undefined
            }
          >
            {channelLabel(c)}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      <Tabs.Panel value="email" pt="sm">
        <EmailFields form={form} />
      </Tabs.Panel>
      <Tabs.Panel value="sms" pt="sm">
        <Stack>
          <Textarea
            label="SMS text"
            required
            autosize
            minRows={3}
            {...form.getInputProps('smsText')}
          />
          <SmsPreview text={form.values.smsText} />
        </Stack>
      </Tabs.Panel>
      <Tabs.Panel value="whatsapp" pt="sm">
        <WhatsappFields form={form} />
      </Tabs.Panel>
      <Tabs.Panel value="telegram" pt="sm">
        <Stack>
          <Textarea
            label="Telegram text"
            required
            autosize
            minRows={3}
            {...form.getInputProps('tgText')}
          />
          <div>
            <Text size="sm" fw={500} id="parse-mode-label" mb={4}>
              Formatting
            </Text>
            <SegmentedControl
              aria-labelledby="parse-mode-label"
              data={[{ value: '', label: 'Plain text' }, ...optionsOf(PARSE_MODE_LABELS)]}
              {...form.getInputProps('tgParseMode')}
            />
          </div>
        </Stack>
      </Tabs.Panel>
      <Tabs.Panel value="imessage" pt="sm">
        <Textarea
          label="iMessage text"
          required
          autosize
          minRows={3}
          {...form.getInputProps('imText')}
        />
      </Tabs.Panel>
      <Tabs.Panel value="push" pt="sm">
        <Stack>
          <TextInput label="Push title" {...form.getInputProps('pushTitle')} />
          <Textarea label="Push body" autosize minRows={2} {...form.getInputProps('pushBody')} />
          <PushPreview title={form.values.pushTitle} body={form.values.pushBody} />
        </Stack>
      </Tabs.Panel>
    </Tabs>
  );
}

function EmailFields({ form }: { form: Form }) {
  return (
    <Stack>
      <Group grow align="flex-start">
        <TextInput
          label="From"
          placeholder="Shop <news@shop.example>"
          required
          {...form.getInputProps('from')}
        />
        <TextInput label="Subject" required {...form.getInputProps('subject')} />
      </Group>
      <Textarea
        label="Text"
        description="{{unsubscribe_url}} places the unsubscribe link; without it a footer is added"
        autosize
        minRows={4}
        {...form.getInputProps('text')}
      />
      <Textarea label="HTML (optional)" autosize minRows={3} {...form.getInputProps('html')} />
    </Stack>
  );
}

function WhatsappFields({ form }: { form: Form }) {
  const params = form.values.waParameters;
  return (
    <Stack>
      <Textarea
        label="WhatsApp text"
        description="Free text reaches a contact only within 24 hours of its last message; a template reaches it at any time."
        autosize
        minRows={2}
        {...form.getInputProps('waText')}
      />
      <Group grow align="flex-start">
        <TextInput
          label="Template name"
          placeholder="order_update"
          {...form.getInputProps('waTemplateName')}
        />
        <TextInput
          label="Template language"
          placeholder="en_US"
          {...form.getInputProps('waTemplateLanguage')}
        />
      </Group>
      {params.map((_, i) => (
        <Group key={i} align="flex-end" wrap="nowrap">
          <TextInput
            style={{ flex: 1 }}
            label={`Parameter {{${i + 1}}}`}
            {...form.getInputProps(`waParameters.${i}`)}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            aria-label={`Remove parameter ${i + 1}`}
            onClick={() => form.removeListItem('waParameters', i)}
          >
            <IconX size={16} />
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button
          variant="subtle"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => form.insertListItem('waParameters', '')}
        >
          Add a parameter
        </Button>
      </Group>
      <WhatsappTemplatePreview
        name={form.values.waTemplateName}
        language={form.values.waTemplateLanguage}
        parameters={params}
      />
    </Stack>
  );
}
