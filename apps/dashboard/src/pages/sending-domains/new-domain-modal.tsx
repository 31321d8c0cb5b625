// Add a sending domain: its name; the API makes its DKIM key and the records to publish.
import { Alert, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import type { SendingDomain } from '../../api/types';
import { applyApiErrors } from '../../lib/form-errors';

export function NewDomainModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (domain: SendingDomain) => void;
}) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({ initialValues: { name: '' } });
  const close = () => {
    form.reset();
    setError(null);
    props.onClose();
  };
  const submit = form.onSubmit(async (v) => {
    setError(null);
    try {
      const domain = await dataOf(
        api.POST('/api/v1/user/sending-domains', { body: { name: v.name } }),
      );
      await queries.invalidateQueries();
      form.reset();
      props.onCreated(domain);
    } catch (err) {
      setError(applyApiErrors(form, err, ['name']));
    }
  });
  return (
    <Modal opened={props.opened} onClose={close} title="Add sending domain">
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert" data-testid="domain-form-error">
              {error}
            </Alert>
          )}
          <TextInput
            label="Domain name"
            description="The part after @ in your From address, e.g. example.com. Its subdomains are covered too."
            placeholder="example.com"
            required
            data-autofocus
            {...form.getInputProps('name')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Add domain
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
