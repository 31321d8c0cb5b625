// A contact's tags (add by name, remove) and list memberships (subscribe to another list).
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Select,
  Table,
  TagsInput,
  Text,
  Title,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, pageOf, unwrap } from '../../api/client';
import type { Contact } from '../../api/types';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDate } from '../../lib/format';
import { runChange } from '../../lib/mutate';

type WithTagRecords = Contact & { tagRecords?: { id: string; name: string }[] };

export function ContactTags({ contact }: { contact: WithTagRecords }) {
  const queries = useQueryClient();
  const [names, setNames] = useState<string[]>([]);
  const idOf = (name: string) => contact.tagRecords?.find((t) => t.name === name)?.id;

  const add = async () => {
    const done = await runChange(
      queries,
      () =>
        unwrap(
          api.POST('/api/v1/user/contacts/{id}/tags', {
            params: { path: { id: contact.id } },
            body: { names },
          }),
        ),
      'Tags added',
    );
    if (done) setNames([]);
  };
  const remove = (tagId: string, name: string) =>
    runChange(
      queries,
      () =>
        unwrap(
          api.DELETE('/api/v1/user/contacts/{id}/tags/{tagId}', {
            params: { path: { id: contact.id, tagId } },
          }),
        ),
      `Tag ${name} removed`,
    );

  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        Tags
      </Title>
      <Group gap={6} mb="sm">
        {contact.tags.length === 0 && (
          <Text c="dimmed" size="sm">
            No tags.
          </Text>
        )}
        {contact.tags.map((name) => {
          const tagId = idOf(name);
          return (
            <Badge
              key={name}
              variant="light"
              rightSection={
                tagId && (
                  <ActionIcon
                    size="xs"
                    variant="transparent"
                    aria-label={`Remove tag ${name}`}
                    onClick={() => void remove(tagId, name)}
                  >
                    <IconX size={12} />
                  </ActionIcon>
                )
              }
            >
              {name}
            </Badge>
          );
        })}
      </Group>
      <Group align="flex-end" gap="sm">
        <TagsInput
          label="Add tags"
          placeholder="Type a tag and press Enter"
          value={names}
          onChange={setNames}
          style={{ flex: 1 }}
        />
        <Button onClick={() => void add()} disabled={names.length === 0}>
          Add
        </Button>
      </Group>
    </Paper>
  );
}

export function ContactLists({ contact }: { contact: Contact }) {
  const queries = useQueryClient();
  const [listId, setListId] = useState<string | null>(null);
  // One page of lists (the first 100 by the API's order) feeds the picker.
  const lists = useOrgQuery(['lists', 'picker'], () =>
    pageOf(api.GET('/api/v1/user/contact-lists', { params: { query: { limit: 100 } } })),
  );
  const memberships = contact.listMemberships ?? [];
  const subscribe = async () => {
    if (!listId) return;
    await runChange(
      queries,
      () =>
        unwrap(
          api.POST('/api/v1/user/contact-lists/{id}/members', {
            params: { path: { id: listId } },
            body: { contactIds: [contact.id] },
          }),
        ),
      'Subscribed to the list',
    );
    setListId(null);
  };

  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        Lists
      </Title>
      {memberships.length === 0 ? (
        <Text c="dimmed" size="sm" mb="sm">
          Not on any list.
        </Text>
      ) : (
        <Table mb="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>List</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Since</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {memberships.map((m) => (
              <Table.Tr key={m.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/lists/${m.contactListId}`} size="sm">
                    {m.contactList?.name ?? m.contactListId}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={m.status === 'subscribed' ? 'green' : 'gray'}>
                    {m.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {formatDate(m.status === 'subscribed' ? m.subscribedAt : m.unsubscribedAt)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Group align="flex-end" gap="sm">
        <Select
          label="Subscribe to a list"
          placeholder="Choose a list"
          searchable
          data={(lists.data?.data ?? []).map((l) => ({ value: l.id, label: l.name }))}
          value={listId}
          onChange={setListId}
          style={{ flex: 1 }}
        />
        <Button onClick={() => void subscribe()} disabled={!listId}>
          Subscribe
        </Button>
      </Group>
    </Paper>
  );
}
