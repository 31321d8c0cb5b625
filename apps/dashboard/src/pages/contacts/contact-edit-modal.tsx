import { Alert, Button, Group, Modal, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import type { Contact } from '../../api/types';
import { applyApiErrors } from '../../lib/form-errors';
import { contactStatusValues } from '../../api/schema-values';
import type { ContactStatus } from '../../api/types';

const FIELDS = ['firstName', 'lastName', 'status', 'language', 'timezone', 'notes'] as const;

export function ContactEditModal(props: {
  contact: Contact;
  opened: boolean;
  onClose: () => void;
}) {
  const { contact } = props;
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    initialValues: {
      firstName: contact.firstName ?? '',
      lastName: contact.lastName ?? '',
      status: contact.status ?? 'active',
      language: contact.language ?? '',
      timezone: contact.timezone ?? '',
      notes: contact.notes ?? '',
    },
  });

  const submit = form.onSubmit(async (v) => {
    setError(null);
    try {
      await dataOf(
        api.PATCH('/api/v1/user/contacts/{id}', {
          params: { path: { id: contact.id } },
          body: {
            firstName: v.firstName || null,
            lastName: v.lastName || null,
            status: v.status as ContactStatus,
            language: v.language || null,
            timezone: v.timezone || null,
            notes: v.notes || null,
          },
        }),
      );
      await queries.invalidateQueries();
      notifications.show({ color: 'green', message: 'Contact saved' });
      props.onClose();
    } catch (err) {
      setError(applyApiErrors(form, err, FIELDS));
    }
  });

  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Edit contact">
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
          <Select
            label="Status"
            data={[...contactStatusValues]}
            allowDeselect={false}
            {...form.getInputProps('status')}
          />
          <Group grow>
            <TextInput label="Language" placeholder="en" {...form.getInputProps('language')} />
            <TextInput
              label="Time zone"
              placeholder="Europe/Paris"
              {...form.getInputProps('timezone')}
            />
          </Group>
          <Textarea label="Notes" autosize minRows={2} {...form.getInputProps('notes')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
