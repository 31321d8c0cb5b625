// The account's callback URL, for providers that need it pasted in their console (WhatsApp's
// webhook configuration, a Blooio webhook, the organization's own `http` service), with a copy
// button. The dashboard is served by the API, so the API's public address is this page's origin.
import { ActionIcon, Code, CopyButton, Group, Paper, Text, Title, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** `{origin of the API}/channels/callbacks/{id}`: where the provider posts statuses and replies. */
export function callbackUrl(id: string): string {
  return `${window.location.origin}/channels/callbacks/${encodeURIComponent(id)}`;
}

export function CallbackUrl({ id, help }: { id: string; help: string }) {
  const url = callbackUrl(id);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="callback-url-title">
      <Title order={2} size="h4" mb={4} id="callback-url-title">
        Callback URL
      </Title>
      <Text size="sm" mb="sm">
        {help}
      </Text>
      <Group gap="xs" wrap="nowrap">
        <Code data-testid="callback-url" style={{ wordBreak: 'break-all' }}>
          {url}
        </Code>
        <CopyButton value={url}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
              <ActionIcon
                variant="subtle"
                color={copied ? 'green' : 'gray'}
                onClick={copy}
                aria-label="Copy the callback URL"
              >
                {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
    </Paper>
  );
}
