import { Alert, Button, Group, Modal, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import { applyApiErrors } from '../../lib/form-errors';

export function NewListModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({ initialValues: { name: '', description: '' } });
  const close = () => {
    form.reset();
    setError(null);
    onClose();
  };
  const submit = form.onSubmit(async (v) => {
    setError(null);
    try {
      const list = await dataOf(
        api.POST('/api/v1/user/contact-lists', {
          body: { name: v.name, description: v.description || undefined },
        }),
      );
      await queries.invalidateQueries();
      notifications.show({ color: 'green', message: `List ${list.name} created` });
      close();
    } catch (err) {
      setError(applyApiErrors(form, err, ['name', 'description']));
    }
  });
  return (
    <Modal opened={opened} onClose={close} title="New list">
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            {...form.getInputProps('description')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Create list
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
