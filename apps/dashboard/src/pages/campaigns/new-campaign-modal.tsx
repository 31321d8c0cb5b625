// The campaign composer: a draft to a list or a segment, on channels in the order each contact is
// tried, with the content of each channel, and beside it the reach each channel would have now.
import {
  Alert,
  Button,
  Grid,
  Group,
  Modal,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf, pageOf } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { Campaign } from '../../api/types';
import { useOrgQuery } from '../../hooks/use-org-query';
import { applyApiErrors } from '../../lib/form-errors';
import type { CampaignChannel, CampaignContent, CreateCampaignBody } from './campaign-channels';
import { ChannelContentTabs, type ComposerValues, hasError } from './channel-content-tabs';
import { ChannelOrder } from './channel-order';
import { CampaignReach } from './campaign-reach';

const INITIAL: ComposerValues = {
  name: '',
  listId: '',
  segmentId: '',
  channels: ['email'],
  from: '',
  subject: '',
  text: '',
  html: '',
  smsText: '',
  waText: '',
  waTemplateName: '',
  waTemplateLanguage: 'en_US',
  waParameters: [],
  tgText: '',
  tgParseMode: '',
  imText: '',
  pushTitle: '',
  pushBody: '',
};

const FIELDS = Object.keys(INITIAL);

/** The API's field paths placed beside the composer's inputs. */
const RENAME: Record<string, string> = {
  'content.sms': 'smsText',
  'content.sms.text': 'smsText',
  'content.whatsapp': 'waText',
  'content.whatsapp.text': 'waText',
  'content.whatsapp.template.name': 'waTemplateName',
  'content.whatsapp.template.language': 'waTemplateLanguage',
  'content.whatsapp.template.parameters': 'waParameters',
  'content.telegram': 'tgText',
  'content.telegram.text': 'tgText',
  'content.telegram.parseMode': 'tgParseMode',
  'content.imessage': 'imText',
  'content.imessage.text': 'imText',
  'content.push': 'pushTitle',
  'content.push.title': 'pushTitle',
  'content.push.body': 'pushBody',
};

/** The content of each chosen channel beyond email, as the API takes it. */
export function contentOf(v: ComposerValues): CampaignContent {
  const on = (c: CampaignChannel) => v.channels.includes(c);
  const content: CampaignContent = {};
  if (on('sms')) content.sms = { text: v.smsText };
  if (on('whatsapp')) {
    content.whatsapp = {
      ...(v.waText ? { text: v.waText } : {}),
      ...(v.waTemplateName
        ? {
            template: {
              name: v.waTemplateName,
              language: v.waTemplateLanguage,
              parameters: v.waParameters,
            },
          }
        : {}),
    };
  }
  if (on('telegram')) {
    content.telegram = { text: v.tgText, ...(v.tgParseMode ? { parseMode: v.tgParseMode } : {}) };
  }
  if (on('imessage')) content.imessage = { text: v.imText };
  if (on('push')) {
    content.push = {
      ...(v.pushTitle ? { title: v.pushTitle } : {}),
      ...(v.pushBody ? { body: v.pushBody } : {}),
    };
  }
  return content;
}

export function NewCampaignModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (c: Campaign) => void;
}) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [audience, setAudience] = useState<'list' | 'segment'>('list');
  const [orderTouched, setOrderTouched] = useState(false);
  const [tab, setTab] = useState<CampaignChannel>('email');
  const needs = (all: ComposerValues, c: CampaignChannel, ok: boolean, message: string) =>
    all.channels.includes(c) && !ok ? message : null;
  const form = useForm<ComposerValues>({
    initialValues: INITIAL,
    validate: {
      listId: (v) => (audience === 'list' && !v ? 'Choose a list' : null),
      segmentId: (v) => (audience === 'segment' && !v ? 'Choose a segment' : null),
      channels: (v) => (v.length ? null : 'Choose at least one channel'),
      text: (v, all) =>
        needs(all, 'email', Boolean(v || all.html), 'Write the message (text or HTML)'),
      smsText: (v, all) => needs(all, 'sms', Boolean(v.trim()), 'Write the SMS text'),
      waText: (v, all) =>
        needs(
          all,
          'whatsapp',
          Boolean(v.trim() || all.waTemplateName),
          'Write a text or name a template',
        ),
      waTemplateLanguage: (v, all) =>
        needs(all, 'whatsapp', Boolean(v || !all.waTemplateName), "Enter the template's language"),
      tgText: (v, all) => needs(all, 'telegram', Boolean(v.trim()), 'Write the Telegram text'),
      imText: (v, all) => needs(all, 'imessage', Boolean(v.trim()), 'Write the iMessage text'),
      pushTitle: (v, all) =>
        needs(all, 'push', Boolean(v || all.pushBody), 'Write a title or a body'),
    },
  });
  const { channels } = form.values;
  const active = channels.includes(tab) ? tab : channels[0];
  // One page of each (the first 100) feeds the pickers.
  const lists = useOrgQuery(['lists', 'picker'], () =>
    pageOf(api.GET('/api/v1/user/contact-lists', { params: { query: { limit: 100 } } })),
  );
  const segments = useOrgQuery(['segments', 'picker'], () =>
    pageOf(api.GET('/api/v1/user/contact-segments', { params: { query: { limit: 100 } } })),
  );
  const setChannels = (next: CampaignChannel[]) => {
    setOrderTouched(true);
    form.setFieldValue('channels', next);
  };
  const pickList = (listId: string | null) => {
    form.setFieldValue('listId', listId ?? '');
    const preferred = lists.data?.data.find((l) => l.id === listId)?.preferredChannels;
    // Until the user orders the channels, a list's preferred channels are the campaign's default.
    if (!orderTouched && preferred?.length) form.setFieldValue('channels', preferred);
  };
  const close = () => {
    form.reset();
    setOrderTouched(false);
    setTab('email');
    setError(null);
    props.onClose();
  };
  /** Opens the tab of the first channel whose content holds an error. */
  const showFirstError = (errors: Record<string, unknown>) => {
    const first = form.values.channels.find((c) => hasError(errors, c));
    if (first) setTab(first);
  };
  const submit = form.onSubmit(async (v) => {
    setError(null);
    const email = v.channels.includes('email');
    const body: CreateCampaignBody = {
      name: v.name,
      channels: v.channels,
      content: contentOf(v),
      ...(audience === 'list' ? { listId: v.listId } : { segmentId: v.segmentId }),
      ...(email
        ? {
            subject: v.subject,
            from: v.from,
            ...(v.text ? { text: v.text } : {}),
            ...(v.html ? { html: v.html } : {}),
          }
        : {}),
    };
    try {
      const created = await dataOf(api.POST('/api/v1/user/campaigns', { body }));
      await queries.invalidateQueries();
      form.reset();
      setOrderTouched(false);
      props.onCreated(created);
    } catch (err) {
      setError(applyApiErrors(form, err, FIELDS, RENAME));
      if (err instanceof ApiError) {
        const fields = Object.keys(err.fieldErrors()).map((k) => [RENAME[k] ?? k, true]);
        showFirstError(Object.fromEntries(fields));
      }
    }
  }, showFirstError);

  return (
    <Modal opened={props.opened} onClose={close} title="New campaign" size={1100}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Grid gap="lg">
            <Grid.Col span={{ base: 12, md: 8 }}>
              <Stack>
                <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
                <Group align="flex-end" grow>
                  <div>
                    <Text size="sm" fw={500} id="audience-label" mb={4}>
                      Send to
                    </Text>
                    <SegmentedControl
                      aria-labelledby="audience-label"
                      value={audience}
                      onChange={(v) => setAudience(v as 'list' | 'segment')}
                      data={[
                        { value: 'list', label: 'A list' },
                        { value: 'segment', label: 'A segment' },
                      ]}
                    />
                  </div>
                  {audience === 'list' ? (
                    <Select
                      label="List"
                      searchable
                      data={(lists.data?.data ?? []).map((l) => ({
                        value: l.id,
                        label: `${l.name} (${l.subscriberCount})`,
                      }))}
                      {...form.getInputProps('listId')}
                      onChange={pickList}
                    />
                  ) : (
                    <Select
                      label="Segment"
                      searchable
                      data={(segments.data?.data ?? []).map((s) => ({
                        value: s.id,
                        label: s.name,
                      }))}
                      {...form.getInputProps('segmentId')}
                    />
                  )}
                </Group>
                <ChannelOrder
                  value={channels}
                  onChange={setChannels}
                  error={form.errors.channels as string | undefined}
                />
                {active && (
                  <ChannelContentTabs
                    form={form}
                    channels={channels}
                    active={active}
                    onActive={setTab}
                  />
                )}
              </Stack>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 4 }}>
              <CampaignReach
                listId={audience === 'list' ? form.values.listId || null : null}
                segmentId={audience === 'segment' ? form.values.segmentId || null : null}
                channels={channels}
              />
            </Grid.Col>
          </Grid>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Create draft
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
