// "Connect a provider": pick one (the `http` provider also asks its channel), fill in its fields
// (help says where each is in the provider's console), and the API stores the credentials encrypted
// and write-only. The answer carries the `http` provider's generated secret, shown once by the page.
import {
  Accordion,
  Alert,
  Button,
  Checkbox,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, dataOf } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { ProviderChannel } from '../../api/types';
import type { components } from '../../api/schema';
import { applyApiErrors } from '../../lib/form-errors';
import { optionsOf } from '../../lib/options';
import { ProviderFields } from './provider-fields';
import {
  apiBaseHelp,
  CHANNEL_LABEL,
  CONNECTABLE,
  type ConnectableProvider,
  emptyFieldValues,
  fieldPaths,
  LocalFieldError,
  PROVIDER_SPECS,
  SERVICE_ACCOUNT_ERRORS,
  valuesFor,
} from './provider-specs';

/** The created account, with the `http` provider's generated secret when one was generated. */
export type CreatedProvider = components['schemas']['CreatedChannelProviderResponse'];

function initialValues() {
  return {
    provider: 'twilio' as ConnectableProvider,
    channel: 'sms' as ProviderChannel,
    name: '',
    maxPerSecond: '' as number | string,
    isDefault: false,
    ...emptyFieldValues(),
  };
}

export function ConnectProviderModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (provider: CreatedProvider) => void;
}) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [advanced, setAdvanced] = useState<string | null>(null);
  const form = useForm({ initialValues: initialValues() });
  const provider = form.values.provider;
  const spec = PROVIDER_SPECS[provider];
  const channel = spec.channel ?? form.values.channel;
  const close = () => {
    form.reset();
    setError(null);
    setAdvanced(null);
    props.onClose();
  };

  const submit = form.onSubmit(async (v) => {
    setError(null);
    form.clearErrors();
    let credentials: Record<string, unknown>;
    let settings: Record<string, unknown>;
    try {
      credentials = valuesFor(v.provider, 'credentials', v);
      settings = valuesFor(v.provider, 'settings', v);
    } catch (err) {
      if (err instanceof LocalFieldError) form.setFieldError(err.field, err.message);
      return;
    }
    try {
      const created = await dataOf(
        api.POST('/api/v1/user/channel-providers', {
          body: {
            channel: PROVIDER_SPECS[v.provider].channel ?? v.channel,
            provider: v.provider,
            name: v.name.trim(),
            credentials,
            settings,
            ...(v.isDefault ? { isDefault: true } : {}),
            ...(v.maxPerSecond === '' ? {} : { maxPerSecond: Number(v.maxPerSecond) }),
          },
        }),
      );
      await queries.invalidateQueries();
      form.reset();
      setAdvanced(null);
      props.onCreated(created);
    } catch (err) {
      const fields = [...fieldPaths(v.provider), 'channel', 'name', 'maxPerSecond', 'isDefault'];
      setError(applyApiErrors(form, err, fields, SERVICE_ACCOUNT_ERRORS));
      // An error on the base URL must be seen: open the section that holds it.
      if (err instanceof ApiError && err.fieldErrors()['settings.apiBaseUrl']) {
        setAdvanced('advanced');
      }
    }
  });

  return (
    <Modal opened={props.opened} onClose={close} title="Connect a provider" size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          {error && (
            <Alert color="red" role="alert" data-testid="provider-form-error">
              {error}
            </Alert>
          )}
          <Radio.Group
            label="Provider"
            value={provider}
            onChange={(p) => {
              form.setFieldValue('provider', p as ConnectableProvider);
              form.clearErrors();
              setError(null);
            }}
          >
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" mt={6}>
              {CONNECTABLE.map((p) => (
                <Radio key={p} value={p} label={PROVIDER_SPECS[p].label} />
              ))}
            </SimpleGrid>
          </Radio.Group>
          {spec.channel === null && (
            <NativeSelect
              label="Channel"
              description="The messages this endpoint carries: the platform sends it the channel’s content and address."
              required
              data={optionsOf(CHANNEL_LABEL)}
              {...form.getInputProps('channel')}
            />
          )}
          {spec.note && (
            <Text size="sm" data-testid="provider-note">
              {spec.note}
            </Text>
          )}
          <TextInput
            label="Name"
            description="To tell this account apart from others, e.g. “Twilio production”."
            required
            data-autofocus
            {...form.getInputProps('name')}
          />
          <ProviderFields form={form} fields={spec.fields} />
          <NumberInput
            label="Messages a second at most"
            description={`Left empty, the provider’s published limit (${spec.defaultRate} a second).`}
            min={1}
            max={10000}
            allowDecimal={false}
            {...form.getInputProps('maxPerSecond')}
          />
          <Checkbox
            label={`Make it the default for ${CHANNEL_LABEL[channel]} (a channel’s first account is)`}
            {...form.getInputProps('isDefault', { type: 'checkbox' })}
          />
          {spec.defaultApiBase !== null && (
            <Accordion variant="contained" value={advanced} onChange={setAdvanced}>
              <Accordion.Item value="advanced">
                <Accordion.Control>Advanced</Accordion.Control>
                <Accordion.Panel>
                  <TextInput
                    label="API base URL"
                    description={apiBaseHelp(spec.defaultApiBase)}
                    placeholder="https://"
                    {...form.getInputProps('settings.apiBaseUrl')}
                  />
                </Accordion.Panel>
              </Accordion.Item>
            </Accordion>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={form.submitting}>
              Connect
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
