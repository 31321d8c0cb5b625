// The signing secret, shown once after create or regenerate, with a copy button.
import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

export function SecretModal({ secret, onClose }: { secret: string | null; onClose: () => void }) {
  return (
    <Modal
      opened={secret !== null}
      onClose={onClose}
      title="Signing secret"
      closeOnClickOutside={false}
      size="lg"
    >
      <Stack>
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />}>
          Copy this secret now: it is shown only this once. Your server uses it to check the
          X-Webhook-Signature header of every request.
        </Alert>
        <Code block data-testid="webhook-secret" style={{ wordBreak: 'break-all' }}>
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
          Lost it? Regenerate the secret from the endpoint page; the old one stops working at once.
        </Text>
      </Stack>
    </Modal>
  );
}
