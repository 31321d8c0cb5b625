// One contact: its fields, channel records, tags and lists; edit and delete.
import { Badge, Button, Grid, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { api, dataOf, unwrap } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { contactName, formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { ContactChannels } from './contact-channels';
import { ContactEditModal } from './contact-edit-modal';
import { STATUS_COLOR } from './contact-filters';
import { ContactLists, ContactTags } from './contact-tags-lists';

function Field({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {label}
      </Text>
      <Text size="sm">{value || '—'}</Text>
    </div>
  );
}

export function ContactDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [editing, { open, close }] = useDisclosure(false);
  const contact = useOrgQuery(['contact', id], () =>
    dataOf(api.GET('/api/v1/user/contacts/{id}', { params: { path: { id } } })),
  );
  const c = contact.data;

  const remove = () =>
    confirmDestructive({
      title: 'Delete contact',
      body: 'The contact, its channel records and its list memberships are deleted. This cannot be undone.',
      confirmLabel: 'Delete contact',
      onConfirm: async () => {
        const done = await runChange(
          queries,
          () => unwrap(api.DELETE('/api/v1/user/contacts/{id}', { params: { path: { id } } })),
          'Contact deleted',
        );
        if (done) navigate('/contacts');
      },
    });

  return (
    <QueryState isLoading={contact.isLoading} error={contact.error}>
      {c && (
        <>
          <PageHeader
            title={contactName(c)}
            description={c.emails?.[0]?.email}
            actions={
              <>
                <Button variant="default" onClick={open}>
                  Edit
                </Button>
                <Button color="red" variant="light" onClick={remove}>
                  Delete
                </Button>
              </>
            }
          />
          <Grid>
            <Grid.Col span={{ base: 12, md: 5 }}>
              <Stack>
                <Paper withBorder p="md" radius="md">
                  <Group justify="space-between" mb="sm">
                    <Title order={2} size="h4">
                      Details
                    </Title>
                    {c.status && (
                      <Badge
                        color={STATUS_COLOR[c.status]}
                        variant="light"
                        data-testid="contact-status"
                      >
                        {c.status}
                      </Badge>
                    )}
                  </Group>
                  <SimpleGrid cols={2}>
                    <Field label="First name" value={c.firstName} />
                    <Field label="Last name" value={c.lastName} />
                    <Field label="Language" value={c.language} />
                    <Field label="Time zone" value={c.timezone} />
                    <Field label="Created" value={formatDateTime(c.createdAt)} />
                    <Field label="Last activity" value={formatDateTime(c.lastActivityAt)} />
                  </SimpleGrid>
                  {c.notes && <Field label="Notes" value={c.notes} />}
                </Paper>
                <ContactTags contact={c} />
              </Stack>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 7 }}>
              <Stack>
                <ContactChannels contact={c} />
                <ContactLists contact={c} />
              </Stack>
            </Grid.Col>
          </Grid>
          {editing && <ContactEditModal contact={c} opened={editing} onClose={close} />}
        </>
      )}
    </QueryState>
  );
}
