// The inputs of one provider's fields, shared by "Connect a provider" and "Replace credentials":
// secrets as password inputs, the FCM key as JSON (pasted or read from its file), the APNs key as
// PEM text, each with where to find it in the provider's console.
import { FileInput, NativeSelect, PasswordInput, Stack, Textarea, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { IconFileUpload } from '@tabler/icons-react';
import type { FieldSpec } from './provider-specs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyForm = UseFormReturnType<any>;

function FieldInput({ form, field }: { form: AnyForm; field: FieldSpec }) {
  const common = {
    label: field.label,
    description: field.help,
    required: field.required,
    placeholder: field.placeholder,
    autoComplete: 'off',
    ...form.getInputProps(field.path),
  };
  switch (field.input) {
    case 'password':
      // Unlike TextInput, PasswordInput does not mark its inner input invalid by itself.
      return (
        <PasswordInput
          {...common}
          autoComplete="new-password"
          aria-invalid={common.error ? true : undefined}
        />
      );
    case 'pem':
      return (
        <Textarea
          {...common}
          placeholder="-----BEGIN PRIVATE KEY-----"
          autosize
          minRows={4}
          maxRows={8}
          spellCheck={false}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
      );
    case 'json':
      return (
        <Stack gap={4}>
          <Textarea
            {...common}
            placeholder='{ "type": "service_account", "project_id": … }'
            autosize
            minRows={4}
            maxRows={8}
            spellCheck={false}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <FileInput
            label="Or choose the downloaded key file"
            accept="application/json,.json"
            leftSection={<IconFileUpload size={16} />}
            clearable={false}
            onChange={(file) => {
              if (file) void file.text().then((t) => form.setFieldValue(field.path, t));
            }}
          />
        </Stack>
      );
    case 'environment':
      return (
        <NativeSelect
          {...common}
          data={[
            { value: 'production', label: 'Production' },
            { value: 'sandbox', label: 'Sandbox' },
          ]}
        />
      );
    default:
      return <TextInput {...common} />;
  }
}

export function ProviderFields({ form, fields }: { form: AnyForm; fields: FieldSpec[] }) {
  return (
    <>
      {fields.map((f) => (
        <FieldInput key={f.path} form={form} field={f} />
      ))}
    </>
  );
}
