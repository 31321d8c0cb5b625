import { Alert, Button, Group, Modal, Select, Stack, TagsInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import { applyApiErrors } from '../../lib/form-errors';
import { contactName } from '../../lib/format';
import { contactStatusValues } from '../../api/schema-values';
import type { ContactStatus } from '../../api/types';

const FIELDS = ['firstName', 'lastName', 'email', 'status', 'tags'] as const;

export function NewContactModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    initialValues: {
      firstName: '',
      lastName: '',
      email: '',
      status: 'active',
      tags: [] as string[],
    },
  });

  const close = () => {
    form.reset();
    setError(null);
    onClose();
  };

  const submit = form.onSubmit(async (v) => {
    setError(null);
    try {
      const contact = await dataOf(
        api.POST('/api/v1/user/contacts', {
          body: {
            firstName: v.firstName || null,
            lastName: v.lastName || null,
            status: v.status as ContactStatus,
            emails: v.email ? [{ email: v.email, isPrimary: true }] : undefined,
            tags: v.tags.length ? v.tags : undefined,
          },
        }),
      );
      await queries.invalidateQueries();
      notifications.show({ color: 'green', message: `Contact ${contactName(contact)} created` });
      close();
    } catch (err) {
      setError(
        applyApiErrors(form, err, FIELDS, { 'emails.0.email': 'email', 'emails.0': 'email' }),
      );
    }
  });

  return (
    <Modal opened={opened} onClose={close} title="New contact">
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Group grow>
            <TextInput label="First name" data-autofocus {...form.getInputProps('firstName')} />
            <TextInput label="Last name" {...form.getInputProps('lastName')} />
          </Group>
          <TextInput label="Email" type="email" {...form.getInputProps('email')} />
          <Select
            label="Status"
            data={[...contactStatusValues]}
            allowDeselect={false}
            {...form.getInputProps('status')}
          />
          <TagsInput
            label="Tags"
            description="Press Enter after each tag"
            {...form.getInputProps('tags')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Create contact
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
