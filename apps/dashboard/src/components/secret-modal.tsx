// A signing secret shown once (a webhook endpoint's, an `http` provider's), with a copy button.
// It is kept in memory only, never in the address or the history's state.
import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { ReactNode } from 'react';

export function SecretModal(props: {
  secret: string | null;
  onClose: () => void;
  /** What the secret is for, after "shown only this once". */
  use: ReactNode;
  /** What to do when it is lost. */
  lost: string;
  testId: string;
}) {
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
          Shown once: copy this secret now, it is never shown again. {props.use}
        </Alert>
        <Code block data-testid={props.testId} style={{ wordBreak: 'break-all' }}>
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
          {props.lost}
        </Text>
      </Stack>
    </Modal>
  );
}
