// Change a provider account: its name, throughput and settings (the connect form's fields and
// help), and its credentials. Credentials are write-only: the fields start empty, left empty they
// keep the stored ones, and filled in they replace them together (the API takes them whole).
import {
  Alert,
  Button,
  Group,
  NumberInput,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, dataOf } from '../../api/client';
import type { components } from '../../api/schema';
import type { ChannelProvider } from '../../api/types';
import { applyApiErrors } from '../../lib/form-errors';
import { ProviderFields } from './provider-fields';
import {
  apiBaseHelp,
  type ConnectableProvider,
  emptyFieldValues,
  type FieldValues,
  fieldPaths,
  LocalFieldError,
  missingCredentials,
  PROVIDER_SPECS,
  SERVICE_ACCOUNT_ERRORS,
  settingsValues,
  valuesFor,
} from './provider-specs';

type Change = components['schemas']['UpdateChannelProviderDto'];
type EditValues = FieldValues & { name: string; maxPerSecond: number | string };

function storedValues(account: ChannelProvider, provider: ConnectableProvider | null): EditValues {
  const empty = emptyFieldValues();
  return {
    name: account.name,
    maxPerSecond: account.maxPerSecond,
    credentials: empty.credentials,
    settings: provider ? settingsValues(provider, account.settings) : empty.settings,
  };
}

/** The change the form asks for: only what differs from the stored account. */
function changeOf(
  v: EditValues,
  initial: EditValues,
  provider: ConnectableProvider | null,
): Change {
  const change: Change = {};
  if (v.name.trim() !== initial.name) change.name = v.name.trim();
  if (String(v.maxPerSecond) !== String(initial.maxPerSecond)) {
    // An emptied field is sent as 0, for the API to say what it takes.
    change.maxPerSecond = v.maxPerSecond === '' ? 0 : Number(v.maxPerSecond);
  }
  if (!provider) return change;
  const settings = valuesFor(provider, 'settings', v);
  if (JSON.stringify(settings) !== JSON.stringify(valuesFor(provider, 'settings', initial))) {
    change.settings = settings;
  }
  const credentials = valuesFor(provider, 'credentials', v);
  if (Object.keys(credentials).length) change.credentials = credentials;
  return change;
}

export function ProviderEditForm(props: {
  account: ChannelProvider;
  provider: ConnectableProvider | null;
}) {
  const { account, provider } = props;
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<EditValues>({ initialValues: storedValues(account, provider) });
  const fields = provider ? PROVIDER_SPECS[provider].fields : [];
  const settingFields = fields.filter((f) => f.path.startsWith('settings.'));
  // Empty keeps the stored credentials: none is required here (missingCredentials checks a set).
  const credentialFields = fields
    .filter((f) => f.path.startsWith('credentials.'))
    .map((f) => ({ ...f, required: false }));

  const reset = (values: EditValues) => {
    form.setValues(values);
    form.resetDirty(values);
  };
  const { name, maxPerSecond } = account;
  const storedSettings = JSON.stringify(account.settings);
  useEffect(() => {
    reset(storedValues(account, provider));
    // Only when the stored values change (a save here or elsewhere), not on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [name, maxPerSecond, storedSettings]);

  const submit = form.onSubmit(async (v) => {
    setError(null);
    form.clearErrors();
    if (provider) {
      const missing = missingCredentials(provider, v);
      if (missing.length) {
        form.setErrors(
          Object.fromEntries(
            missing.map((p) => [p, 'Give this too: the credentials are replaced together']),
          ),
        );
        return;
      }
    }
    let change: Change;
    try {
      change = changeOf(v, form.getInitialValues(), provider);
    } catch (err) {
      if (err instanceof LocalFieldError) form.setFieldError(err.field, err.message);
      return;
    }
    try {
      const saved = await dataOf(
        api.PATCH('/api/v1/user/channel-providers/{id}', {
          params: { path: { id: account.id } },
          body: change,
        }),
      );
      reset(storedValues(saved, provider));
      notifications.show({
        color: 'green',
        message: change.credentials ? 'Provider saved, credentials replaced' : 'Provider saved',
      });
      await queries.invalidateQueries();
    } catch (err) {
      const paths = ['name', 'maxPerSecond', ...(provider ? fieldPaths(provider) : [])];
      setError(applyApiErrors(form, err, paths, SERVICE_ACCOUNT_ERRORS));
    }
  });

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="provider-edit">
      <Title order={2} size="h4" mb="sm" id="provider-edit">
        Settings
      </Title>
      <form onSubmit={submit} noValidate data-testid="provider-edit">
        <Stack gap="sm">
          {error && (
            <Alert color="red" role="alert" data-testid="provider-edit-error">
              {error}
            </Alert>
          )}
          <Group align="flex-start">
            <TextInput label="Name" required w={280} {...form.getInputProps('name')} />
            <NumberInput
              label="Messages a second at most"
              min={1}
              max={10000}
              allowDecimal={false}
              w={220}
              {...form.getInputProps('maxPerSecond')}
            />
          </Group>
          {provider && (
            <>
              <ProviderFields form={form} fields={settingFields} />
              {PROVIDER_SPECS[provider].defaultApiBase !== null && (
                <TextInput
                  label="API base URL"
                  description={apiBaseHelp(PROVIDER_SPECS[provider].defaultApiBase)}
                  placeholder="https://"
                  {...form.getInputProps('settings.apiBaseUrl')}
                />
              )}
              <Title order={3} size="h5" mt="sm">
                Credentials
              </Title>
              <Text size="sm">
                Stored encrypted and never shown. Leave these empty to keep them; to replace them,
                fill in every one: the new ones replace all the stored ones, and the count of
                refused sends starts again.
              </Text>
              <ProviderFields form={form} fields={credentialFields} />
            </>
          )}
          <Group>
            <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
              Save
            </Button>
            <Button
              variant="default"
              disabled={!form.isDirty()}
              onClick={() => {
                reset(form.getInitialValues());
                form.clearErrors();
                setError(null);
              }}
            >
              Discard changes
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
