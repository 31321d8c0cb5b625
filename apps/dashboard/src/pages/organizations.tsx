import { Badge, Button, Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { returnPath } from '../auth/return-to';
import { useSession } from '../auth/session';
import { EmptyState } from '../components/query-state';

/** The organization picker: every organization the user is a member of. */
export function OrganizationsPage() {
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  if (!session.signedIn) return <Navigate to="/sign-in" replace state={location.state} />;

  return (
    <Center mih="100vh" bg="gray.0" component="main">
      <Paper withBorder shadow="sm" p="xl" w={480} radius="md">
        <Stack>
          <Title order={1} size="h2">
            Choose an organization
          </Title>
          {session.organizations.length === 0 ? (
            <EmptyState title="No organization">
              Your user is not a member of any organization yet. Ask an owner to add you.
            </EmptyState>
          ) : (
            session.organizations.map((org) => (
              <Button
                key={org.id}
                variant={org.id === session.organization?.id ? 'light' : 'default'}
                justify="space-between"
                h={56}
                onClick={() => {
                  session.selectOrganization(org.id);
                  navigate(returnPath(location), { replace: true });
                }}
                rightSection={
                  <Group gap={6}>
                    <Badge variant="light">{org.plan}</Badge>
                    <Badge variant="outline" color="gray">
                      {org.role}
                    </Badge>
                  </Group>
                }
              >
                <Text fw={600}>{org.name}</Text>
              </Button>
            ))
          )}
          <Button variant="subtle" onClick={() => void session.signOut()}>
            Sign out
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}
