// Sending domains: the organization's domains with their status, one API page at a time; add one.
import { Anchor, Button, Table } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { api, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDate, formatDateTime } from '../../lib/format';
import { useQueryState } from '../../lib/use-page';
import { DomainStatusBadge } from './domain-status';
import { NewDomainModal } from './new-domain-modal';

export function SendingDomainsPage() {
  const navigate = useNavigate();
  const [adding, { open, close }] = useDisclosure(false);
  const { page, setPage } = useQueryState([]);
  const domains = useOrgQuery(['sending-domains', page], () =>
    pageOf(api.GET('/api/v1/user/sending-domains', { params: { query: { page, limit: 20 } } })),
  );
  const rows = domains.data?.data ?? [];

  return (
    <>
      <PageHeader
        title="Sending domains"
        description="Prove you own the domains your email is sent from: mail From a verified domain is signed, so receivers trust it."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            Add domain
          </Button>
        }
      />
      <QueryState
        isLoading={domains.isLoading}
        error={domains.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title="No sending domains yet">
            Add the domain of your From address, then publish the DNS records it shows.
          </EmptyState>
        }
      >
        <Table.ScrollContainer minWidth={640}>
          <Table highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Domain</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Verified</Table.Th>
                <Table.Th>Added</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/sending-domains/${d.id}`} size="sm" fw={500}>
                      {d.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <DomainStatusBadge status={d.status} />
                  </Table.Td>
                  <Table.Td>{formatDateTime(d.verifiedAt)}</Table.Td>
                  <Table.Td>{formatDate(d.createdAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Paginator meta={domains.data?.meta} onChange={setPage} />
      </QueryState>
      <NewDomainModal
        opened={adding}
        onClose={close}
        onCreated={(d) => {
          close();
          navigate(`/sending-domains/${d.id}`);
        }}
      />
    </>
  );
}
