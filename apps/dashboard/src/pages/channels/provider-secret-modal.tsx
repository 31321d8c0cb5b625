// The `http` provider's generated signing secret, shown once after the account is connected, with
// a copy button. It is kept in memory only (never in the address or the history's state).
import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

export function ProviderSecretModal(props: { secret: string | null; onClose: () => void }) {
  const { secret, onClose } = props;
  return (
    <Modal
      opened={secret !== null}
      onClose={onClose}
      title="Signing secret"
      closeOnClickOutside={false}
      size="lg"
    >
      <Stack>
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />} data-testid="shown-once">
          Shown once: copy this secret now, it is never shown again. Your service uses it to check
          the webhook-signature header of each message it receives, and to sign what it posts to the
          callback URL.
        </Alert>
        <Code block data-testid="provider-secret" style={{ wordBreak: 'break-all' }}>
          {secret}
        </Code>
        <Group justify="space-between">
          <CopyButton value={secret ?? ''}>
            {({ copied, copy }) => (
              <Button variant={copied ? 'light' : 'filled'} onClick={copy}>
                {copied ? 'Copied' : 'Copy secret'}
              </Button>
            )}
          </CopyButton>
          <Button variant="default" onClick={onClose}>
            I have stored it
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          Lost it? Replace the credentials on the account’s page with a secret of your own.
        </Text>
      </Stack>
    </Modal>
  );
}
