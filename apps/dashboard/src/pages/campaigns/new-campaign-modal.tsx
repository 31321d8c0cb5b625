// A draft email campaign to a list or a segment.
import {
  Alert,
  Button,
  Group,
  Modal,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf, pageOf } from '../../api/client';
import type { Campaign, ContactList, Segment } from '../../api/models';
import { useOrgQuery } from '../../hooks/use-org-query';
import { applyApiErrors } from '../../lib/form-errors';

const FIELDS = ['name', 'subject', 'from', 'listId', 'segmentId', 'text', 'html'] as const;

export function NewCampaignModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (c: Campaign) => void;
}) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [audience, setAudience] = useState<'list' | 'segment'>('list');
  const form = useForm({
    initialValues: {
      name: '',
      subject: '',
      from: '',
      listId: '',
      segmentId: '',
      text: '',
      html: '',
    },
    validate: {
      listId: (v) => (audience === 'list' && !v ? 'Choose a list' : null),
      segmentId: (v) => (audience === 'segment' && !v ? 'Choose a segment' : null),
      text: (v, all) => (!v && !all.html ? 'Write the message (text or HTML)' : null),
    },
  });
  // One page of each (the first 100) feeds the pickers.
  const lists = useOrgQuery(['lists', 'picker'], () =>
    pageOf<ContactList>(
      api.GET('/api/v1/user/contact-lists', { params: { query: { limit: 100 } } }),
    ),
  );
  const segments = useOrgQuery(['segments', 'picker'], () =>
    pageOf<Segment>(
      api.GET('/api/v1/user/contact-segments', { params: { query: { limit: 100 } } }),
    ),
  );
  const close = () => {
    form.reset();
    setError(null);
    props.onClose();
  };
  const submit = form.onSubmit(async (v) => {
    setError(null);
    try {
      const created = await dataOf<Campaign>(
        api.POST('/api/v1/user/campaigns', {
          body: {
            name: v.name,
            subject: v.subject,
            from: v.from,
            ...(audience === 'list' ? { listId: v.listId } : { segmentId: v.segmentId }),
            ...(v.text ? { text: v.text } : {}),
            ...(v.html ? { html: v.html } : {}),
          },
        }),
      );
      await queries.invalidateQueries();
      form.reset();
      props.onCreated(created);
    } catch (err) {
      setError(applyApiErrors(form, err, FIELDS));
    }
  });

  return (
    <Modal opened={props.opened} onClose={close} title="New campaign" size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
          <Group grow>
            <TextInput
              label="From"
              placeholder="Shop <news@shop.example>"
              required
              {...form.getInputProps('from')}
            />
            <TextInput label="Subject" required {...form.getInputProps('subject')} />
          </Group>
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
            />
          ) : (
            <Select
              label="Segment"
              searchable
              data={(segments.data?.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
              {...form.getInputProps('segmentId')}
            />
          )}
          <Textarea
            label="Text"
            description="{{unsubscribe_url}} places the unsubscribe link; without it a footer is added"
            autosize
            minRows={4}
            {...form.getInputProps('text')}
          />
          <Textarea label="HTML (optional)" autosize minRows={3} {...form.getInputProps('html')} />
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
