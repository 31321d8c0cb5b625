// Create or edit a webhook endpoint, with the spec's dashboard messages (§15).
import {
  ActionIcon,
  Alert,
  Button,
  Checkbox,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import type { WebhookEndpoint } from '../../api/types';
import { applyApiErrors } from '../../lib/form-errors';
import {
  DEFAULT_RETRIES,
  EVENT_GROUPS,
  type EventType,
  isValidUrl,
  MAX_DASHBOARD_RETRIES,
  maxRetriesOf,
  MESSAGES,
  retriesOf,
} from './webhook-rules';

const FIELDS = [
  'url',
  'description',
  'events',
  'retries',
  'timeoutSeconds',
  'isActive',
  'customHeaders',
] as const;

interface Props {
  endpoint?: WebhookEndpoint;
  opened: boolean;
  onClose: () => void;
  /** Called with the endpoint and, on create, its secret. */
  onSaved: (endpoint: WebhookEndpoint, secret: string | null) => void;
}

export function EndpointFormModal({ endpoint, opened, onClose, onSaved }: Props) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const currentRetries = endpoint ? retriesOf(endpoint.maxRetries) : DEFAULT_RETRIES;
  const form = useForm({
    initialValues: {
      url: endpoint?.url ?? '',
      description: endpoint?.description ?? '',
      events: endpoint?.events ?? ([] as EventType[]),
      retries: currentRetries,
      timeoutSeconds: endpoint?.timeoutSeconds ?? 30,
      isActive: endpoint?.isActive ?? true,
      customHeaders: endpoint?.customHeaders ?? ([] as { key: string; value: string }[]),
    },
    validate: {
      url: (v) => (isValidUrl(v) ? null : MESSAGES.invalidUrl),
      events: (v) => (v.length ? null : MESSAGES.noEvents),
    },
  });

  const close = () => {
    setError(null);
    form.reset();
    onClose();
  };

  const submit = form.onSubmit(async (v) => {
    setError(null);
    const body = {
      url: v.url.trim(),
      description: v.description || null,
      events: v.events,
      isActive: v.isActive,
      maxRetries: maxRetriesOf(v.retries),
      timeoutSeconds: v.timeoutSeconds,
      customHeaders: v.customHeaders.filter((h) => h.key.trim()),
    };
    try {
      const saved = endpoint
        ? {
            ...(await dataOf(
              api.PATCH('/api/v1/user/webhook-endpoints/{id}', {
                params: { path: { id: endpoint.id } },
                body,
              }),
            )),
            secret: null,
          }
        : await dataOf(api.POST('/api/v1/user/webhook-endpoints', { body }));
      await queries.invalidateQueries();
      form.reset();
      onSaved(saved, saved.secret);
    } catch (err) {
      setError(applyApiErrors(form, err, FIELDS, { maxRetries: 'retries' }));
    }
  });

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={endpoint ? 'Edit endpoint' : 'New webhook endpoint'}
      size="lg"
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert" data-testid="endpoint-form-error">
              {error}
            </Alert>
          )}
          <TextInput
            label="Endpoint URL"
            placeholder="https://example.com/webhooks"
            required
            data-autofocus
            {...form.getInputProps('url')}
          />
          <Textarea
            label="Description"
            autosize
            minRows={1}
            {...form.getInputProps('description')}
          />
          <Checkbox.Group
            label="Events"
            description="The events sent to this endpoint"
            required
            {...form.getInputProps('events')}
          >
            <SimpleGrid cols={2} mt="xs">
              {EVENT_GROUPS.map((g) => (
                <Stack key={g.label} gap={6}>
                  <Text size="sm" fw={600}>
                    {g.label}
                  </Text>
                  {g.events.map((e) => (
                    <Checkbox key={e} value={e} label={e} />
                  ))}
                </Stack>
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group grow align="flex-start">
            <NumberInput
              label="Retries"
              description="Attempts after a failed first one (0 = no retry)"
              min={0}
              max={Math.max(MAX_DASHBOARD_RETRIES, currentRetries)}
              clampBehavior="strict"
              allowDecimal={false}
              {...form.getInputProps('retries')}
            />
            <NumberInput
              label="Timeout (seconds)"
              description="Per attempt"
              min={1}
              max={300}
              clampBehavior="strict"
              allowDecimal={false}
              {...form.getInputProps('timeoutSeconds')}
            />
          </Group>
          <div>
            <Text size="sm" fw={500}>
              Custom headers
            </Text>
            <Text size="xs" c="dimmed" mb={6}>
              Added to every request; one named like a built-in header replaces it.
            </Text>
            <Stack gap={6}>
              {form.values.customHeaders.map((_, i) => (
                <Group key={i} gap="xs">
                  <TextInput
                    aria-label={`Header ${i + 1} name`}
                    placeholder="Authorization"
                    {...form.getInputProps(`customHeaders.${i}.key`)}
                  />
                  <TextInput
                    aria-label={`Header ${i + 1} value`}
                    placeholder="Bearer …"
                    style={{ flex: 1 }}
                    {...form.getInputProps(`customHeaders.${i}.value`)}
                  />
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Remove header ${i + 1}`}
                    onClick={() => form.removeListItem('customHeaders', i)}
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                </Group>
              ))}
              <Group>
                <Button
                  size="xs"
                  variant="light"
                  leftSection={<IconPlus size={14} />}
                  onClick={() => form.insertListItem('customHeaders', { key: '', value: '' })}
                >
                  Add header
                </Button>
              </Group>
            </Stack>
          </div>
          <Switch
            label="Active"
            description="An inactive endpoint receives nothing, and events meanwhile are not kept"
            {...form.getInputProps('isActive', { type: 'checkbox' })}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              {endpoint ? 'Save endpoint' : 'Create endpoint'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
