// Issue an API key: name, scopes, limits, expiry; the value comes back once.
import {
  Alert,
  Button,
  Checkbox,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import { scopeValues } from '../../api/schema-values';
import type { Scope } from '../../api/types';
import { applyApiErrors } from '../../lib/form-errors';

const FIELDS = ['name', 'scopes', 'rateLimitPerMinute', 'rateLimitPerDay', 'expiresAt'] as const;

export function NewKeyModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (value: string) => void;
}) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    initialValues: {
      name: '',
      scopes: [] as Scope[],
      rateLimitPerMinute: 300 as number | string,
      rateLimitPerDay: '' as number | string,
      expiresAt: '',
    },
    validate: { scopes: (v) => (v.length ? null : 'Choose at least one scope') },
  });
  const close = () => {
    form.reset();
    setError(null);
    props.onClose();
  };
  const submit = form.onSubmit(async (v) => {
    setError(null);
    try {
      const created = await dataOf(
        api.POST('/api/v1/user/api-keys', {
          body: {
            name: v.name,
            scopes: v.scopes,
            rateLimitPerMinute: Number(v.rateLimitPerMinute) || undefined,
            rateLimitPerDay: v.rateLimitPerDay === '' ? null : Number(v.rateLimitPerDay),
            expiresAt: v.expiresAt ? new Date(`${v.expiresAt}T23:59:59`).toISOString() : null,
          },
        }),
      );
      await queries.invalidateQueries();
      form.reset();
      props.onCreated(created.key);
    } catch (err) {
      setError(applyApiErrors(form, err, FIELDS));
    }
  });
  return (
    <Modal opened={props.opened} onClose={close} title="New API key" size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label="Name"
            description="Where the key is used, e.g. “shop backend”"
            required
            data-autofocus
            {...form.getInputProps('name')}
          />
          <Checkbox.Group label="Scopes" required {...form.getInputProps('scopes')}>
            <SimpleGrid cols={2} mt="xs" spacing={6}>
              {scopeValues.map((s) => (
                <Checkbox key={s} value={s} label={s} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group grow align="flex-start">
            <NumberInput
              label="Requests per minute"
              min={1}
              allowDecimal={false}
              {...form.getInputProps('rateLimitPerMinute')}
            />
            <NumberInput
              label="Requests per day"
              description="Empty: no daily cap"
              min={1}
              allowDecimal={false}
              {...form.getInputProps('rateLimitPerDay')}
            />
          </Group>
          <TextInput
            label="Expires on"
            description="Empty: never"
            type="date"
            {...form.getInputProps('expiresAt')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
