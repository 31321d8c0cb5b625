// The signed-in frame: a sidebar of every page, the organization and the sign-out button.
import {
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  NavLink,
  ScrollArea,
  Stack,
  Text,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconAddressBook,
  IconBroadcast,
  IconChartBar,
  IconCloudUpload,
  IconHome,
  IconKey,
  IconLogout,
  IconMail,
  IconSend,
  IconUsersGroup,
  IconWebhook,
  IconWorldWww,
  IconFilter,
} from '@tabler/icons-react';
import { Link, Outlet, useLocation } from 'react-router';
import { useSession } from '../auth/session';

export const NAV = [
  { to: '/', label: 'Overview', icon: IconHome },
  { to: '/contacts', label: 'Contacts', icon: IconAddressBook },
  { to: '/lists', label: 'Lists', icon: IconUsersGroup },
  { to: '/segments', label: 'Segments', icon: IconFilter },
  { to: '/imports', label: 'Imports', icon: IconCloudUpload },
  { to: '/messages', label: 'Messages', icon: IconMail },
  { to: '/campaigns', label: 'Campaigns', icon: IconSend },
  { to: '/revenue', label: 'Revenue', icon: IconChartBar },
  { to: '/webhooks', label: 'Webhooks', icon: IconWebhook },
  { to: '/api-keys', label: 'API keys', icon: IconKey },
  { to: '/sending-domains', label: 'Sending domains', icon: IconWorldWww },
  { to: '/channels', label: 'Channels', icon: IconBroadcast },
];

export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure();
  const { organization, organizations, signOut } = useSession();
  const { pathname } = useLocation();
  const active = (to: string) => (to === '/' ? pathname === '/' : pathname.startsWith(to));

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 232, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="lg"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Text fw={700}>Messaging Platform</Text>
          </Group>
          <Group gap="sm">
            {organization && (
              <Group gap={6}>
                <Text size="sm" fw={500} data-testid="current-organization">
                  {organization.name}
                </Text>
                <Badge variant="light" size="sm">
                  {organization.plan}
                </Badge>
              </Group>
            )}
            {organizations.length > 1 && (
              <Button component={Link} to="/organizations" variant="subtle" size="xs">
                Switch organization
              </Button>
            )}
            <Button
              variant="default"
              size="xs"
              leftSection={<IconLogout size={14} />}
              onClick={() => void signOut()}
            >
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Main">
        <ScrollArea>
          <Stack gap={2}>
            {NAV.map((item) => (
              <NavLink
                key={item.to}
                component={Link}
                to={item.to}
                label={item.label}
                leftSection={<item.icon size={18} stroke={1.6} />}
                active={active(item.to)}
                aria-current={active(item.to) ? 'page' : undefined}
                onClick={close}
              />
            ))}
          </Stack>
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
