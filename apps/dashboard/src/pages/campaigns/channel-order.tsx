// The order a campaign tries its channels in: drag a row onto another, or use its up and down
// buttons (keyboard and screen readers); add a channel from the menu, remove one with its button.
import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Menu,
  Paper,
  Stack,
  Text,
  VisuallyHidden,
} from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconGripVertical, IconPlus, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { ALL_CHANNELS, type CampaignChannel, channelLabel } from './campaign-channels';

/** `order` with the item at `from` placed at `to`. */
export function moveItem<T>(order: readonly T[], from: number, to: number): T[] {
  const next = [...order];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

export function ChannelOrder(props: {
  value: CampaignChannel[];
  onChange: (next: CampaignChannel[]) => void;
  error?: string | null;
}) {
  const { value, onChange } = props;
  const [dragged, setDragged] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const missing = ALL_CHANNELS.filter((c) => !value.includes(c));

  const move = (from: number, to: number) => {
    if (to < 0 || to >= value.length || from === to) return;
    onChange(moveItem(value, from, to));
    setAnnouncement(`${channelLabel(value[from])} moved to position ${to + 1} of ${value.length}`);
  };
  const remove = (i: number) => {
    onChange(value.filter((_, j) => j !== i));
    setAnnouncement(`${channelLabel(value[i])} removed`);
  };

  return (
    <div>
      <Text size="sm" fw={500} id="channel-order-label">
        Channel order
      </Text>
      <Text size="xs" c="dimmed" mb={6}>
        Each contact gets one message, on the first channel it can be reached on. Drag to reorder.
      </Text>
      <Stack gap={6} role="list" aria-labelledby="channel-order-label" data-testid="channel-order">
        {value.map((channel, i) => (
          <Paper
            key={channel}
            role="listitem"
            withBorder
            radius="sm"
            px="xs"
            py={4}
            draggable
            data-channel={channel}
            onDragStart={(e) => {
              e.dataTransfer.effectAllowed = 'move';
              e.dataTransfer.setData('text/plain', channel);
              setDragged(i);
            }}
            onDragOver={(e) => {
              if (dragged === null) return;
              e.preventDefault();
              e.dataTransfer.dropEffect = 'move';
              setOver(i);
            }}
            onDragLeave={() => setOver((o) => (o === i ? null : o))}
            onDrop={(e) => {
              e.preventDefault();
              if (dragged !== null) move(dragged, i);
              setDragged(null);
              setOver(null);
            }}
            onDragEnd={() => {
              setDragged(null);
              setOver(null);
            }}
            style={{
              cursor: 'grab',
              opacity: dragged === i ? 0.5 : 1,
              borderColor:
                over === i && dragged !== i ? 'var(--mantine-color-indigo-6)' : undefined,
            }}
          >
            <Group justify="space-between" wrap="nowrap">
              <Group gap="xs" wrap="nowrap">
                <IconGripVertical size={16} aria-hidden />
                <Badge variant="light" color="gray" size="sm" circle>
                  {i + 1}
                </Badge>
                <Text size="sm">{channelLabel(channel)}</Text>
              </Group>
              <Group gap={4} wrap="nowrap">
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`Move ${channelLabel(channel)} up`}
                  disabled={i === 0}
                  onClick={() => move(i, i - 1)}
                >
                  <IconArrowUp size={16} />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`Move ${channelLabel(channel)} down`}
                  disabled={i === value.length - 1}
                  onClick={() => move(i, i + 1)}
                >
                  <IconArrowDown size={16} />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${channelLabel(channel)}`}
                  disabled={value.length === 1}
                  onClick={() => remove(i)}
                >
                  <IconX size={16} />
                </ActionIcon>
              </Group>
            </Group>
          </Paper>
        ))}
      </Stack>
      {props.error && (
        <Text size="xs" c="red.9" mt={4} role="alert">
          {props.error}
        </Text>
      )}
      {missing.length > 0 && (
        <Menu position="bottom-start">
          <Menu.Target>
            <Button variant="subtle" size="xs" mt={6} leftSection={<IconPlus size={14} />}>
              Add a channel
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            {missing.map((c) => (
              <Menu.Item
                key={c}
                onClick={() => {
                  onChange([...value, c]);
                  setAnnouncement(`${channelLabel(c)} added at position ${value.length + 1}`);
                }}
              >
                {channelLabel(c)}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      )}
      <VisuallyHidden aria-live="polite">{announcement}</VisuallyHidden>
    </div>
  );
}
