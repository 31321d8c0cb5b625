// Contacts: search and filters with the API's own parameters (§5), one server page at a time.
import { Anchor, Badge, Button, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback, useDisclosure } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { contactName, formatDateTime } from '../../lib/format';
import { compact, useQueryState } from '../../lib/use-page';
import { channelValues, contactStatusValues } from '../../api/schema-values';
import type { Channel, ContactStatus } from '../../api/types';
import { optionsOf } from '../../lib/options';
import {
  SORT_FIELD_LABELS,
  SORT_ORDER_LABELS,
  STATUS_COLOR,
  type SortField,
  type SortOrder,
} from './contact-filters';
import { NewContactModal } from './new-contact-modal';

const KEYS = ['search', 'status', 'channel', 'sortBy', 'sortOrder'] as const;

export function ContactsPage() {
  const navigate = useNavigate();
  const [creating, { open, close }] = useDisclosure(false);
  const { values, page, setFilters, setPage } = useQueryState(KEYS);
  const [search, setSearch] = useState(values.search);
  const applySearch = useDebouncedCallback((v: string) => setFilters({ search: v.trim() }), 300);

  const contacts = useOrgQuery(['contacts', values, page], () =>
    pageOf(
      api.GET('/api/v1/user/contacts', {
        params: {
          query: compact({
            page,
            limit: 20,
            search: values.search,
            status: values.status as ContactStatus,
            channel: values.channel as Channel,
            sortBy: values.sortBy as SortField,
            sortOrder: values.sortOrder as SortOrder,
          }),
        },
      }),
    ),
  );
  const rows = contacts.data?.data ?? [];
  const filtered = Boolean(values.search || values.status || values.channel);

  return (
    <>
      <PageHeader
        title="Contacts"
        description="Everyone you can reach, with their channels, tags and lists."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            New contact
          </Button>
        }
      />
      <Group mb="md" align="flex-end" gap="sm">
        <TextInput
          label="Search"
          placeholder="Name, or an exact email or phone number"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            applySearch(e.currentTarget.value);
          }}
          w={320}
        />
        <Select
          label="Status"
          placeholder="Any"
          data={[...contactStatusValues]}
          value={values.status || null}
          onChange={(v) => setFilters({ status: v ?? '' })}
          clearable
          w={140}
        />
        <Select
          label="Channel"
          placeholder="Any"
          data={[...channelValues]}
          value={values.channel || null}
          onChange={(v) => setFilters({ channel: v ?? '' })}
          clearable
          w={140}
        />
        <Select
          label="Sort by"
          data={optionsOf(SORT_FIELD_LABELS)}
          value={values.sortBy || 'createdAt'}
          onChange={(v) => setFilters({ sortBy: v ?? '' })}
          allowDeselect={false}
          w={150}
        />
        <Select
          label="Order"
          data={optionsOf(SORT_ORDER_LABELS)}
          value={values.sortOrder || 'desc'}
          onChange={(v) => setFilters({ sortOrder: v ?? '' })}
          allowDeselect={false}
          w={150}
        />
      </Group>
      <QueryState
        isLoading={contacts.isLoading}
        error={contacts.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title={filtered ? 'No contact matches' : 'No contacts yet'}>
            {filtered
              ? 'Search matches part of a name, or an email address or phone number exactly.'
              : 'Create one here, or import a CSV file from the Imports page.'}
          </EmptyState>
        }
      >
        <Table.ScrollContainer minWidth={720}>
          <Table highlightOnHover striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Tags</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Table.Tr
                  key={c.id}
                  style={{ cursor: 'pointer' }}
                  onClick={() => navigate(`/contacts/${c.id}`)}
                >
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/contacts/${c.id}`}
                      fw={500}
                      size="sm"
                      onClick={(e) => e.stopPropagation()}
                    >
                      {contactName(c)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    {(c.emails?.find((e) => e.isPrimary) ?? c.emails?.[0])?.email ?? '—'}
                  </Table.Td>
                  <Table.Td>
                    {c.status && (
                      <Badge color={STATUS_COLOR[c.status]} variant="light">
                        {c.status}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {c.tags.slice(0, 3).map((t) => (
                        <Badge key={t} variant="outline" color="gray" size="sm">
                          {t}
                        </Badge>
                      ))}
                      {c.tags.length > 3 && <Text size="xs">+{c.tags.length - 3}</Text>}
                    </Group>
                  </Table.Td>
                  <Table.Td>{formatDateTime(c.createdAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Paginator meta={contacts.data?.meta} onChange={setPage} />
      </QueryState>
      <NewContactModal opened={creating} onClose={close} />
    </>
  );
}
