// Replace a provider account's credentials: they are write-only, so the form starts empty and the
// new values replace the stored ones whole (and the count of refused sends starts again).
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import type { ChannelProvider } from '../../api/models';
import { applyApiErrors } from '../../lib/form-errors';
import { ProviderFields } from './provider-fields';
import {
  type ConnectableProvider,
  emptyFieldValues,
  fieldPaths,
  LocalFieldError,
  PROVIDER_SPECS,
  SERVICE_ACCOUNT_ERRORS,
  valuesFor,
} from './provider-specs';

export function ReplaceCredentialsModal(props: {
  account: ChannelProvider;
  provider: ConnectableProvider;
  opened: boolean;
  onClose: () => void;
}) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({ initialValues: emptyFieldValues() });
  const fields = PROVIDER_SPECS[props.provider].fields.filter((f) =>
    f.path.startsWith('credentials.'),
  );
  const close = () => {
    form.reset();
    setError(null);
    props.onClose();
  };
  const submit = form.onSubmit(async (v) => {
    setError(null);
    let credentials: Record<string, unknown>;
    try {
      credentials = valuesFor(props.provider, 'credentials', v);
    } catch (err) {
      if (err instanceof LocalFieldError) form.setFieldError(err.field, err.message);
      return;
    }
    try {
      await dataOf<ChannelProvider>(
        api.PATCH('/api/v1/user/channel-providers/{id}', {
          params: { path: { id: props.account.id } },
          body: { credentials },
        }),
      );
      await queries.invalidateQueries();
      close();
    } catch (err) {
      const paths = fieldPaths(props.provider, 'credentials');
      setError(applyApiErrors(form, err, paths, SERVICE_ACCOUNT_ERRORS));
    }
  });
  return (
    <Modal opened={props.opened} onClose={close} title="Replace credentials" size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">
            The stored credentials are never shown. What you enter here replaces all of them.
          </Text>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <ProviderFields form={form} fields={fields} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Replace credentials
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
