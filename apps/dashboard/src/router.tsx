// Every page of §15 under /dashboard; a route needing a session or an organization redirects,
// remembering the page asked for.
import type { ReactNode } from 'react';
import { createBrowserRouter, Navigate, useLocation } from 'react-router';
import { returnState } from './auth/return-to';
import { useSession } from './auth/session';
import { AppLayout } from './components/app-layout';
import { ApiKeysPage } from './pages/api-keys/api-keys-page';
import { CampaignDetailPage } from './pages/campaigns/campaign-detail-page';
import { CampaignsPage } from './pages/campaigns/campaigns-page';
import { ChannelProviderDetailPage } from './pages/channels/channel-provider-detail-page';
import { ChannelsPage } from './pages/channels/channels-page';
import { ContactDetailPage } from './pages/contacts/contact-detail-page';
import { ContactsPage } from './pages/contacts/contacts-page';
import { ImportDetailPage } from './pages/imports/import-detail-page';
import { ImportsPage } from './pages/imports/imports-page';
import { NewImportPage } from './pages/imports/new-import-page';
import { ListDetailPage } from './pages/lists/list-detail-page';
import { ListsPage } from './pages/lists/lists-page';
import { MessageDetailPage } from './pages/messages/message-detail-page';
import { MessagesPage } from './pages/messages/messages-page';
import { NotFoundPage } from './pages/not-found-page';
import { OrganizationsPage } from './pages/organizations';
import { OverviewPage } from './pages/overview/overview-page';
import { RevenuePage } from './pages/revenue/revenue-page';
import { SegmentEditorPage } from './pages/segments/segment-editor-page';
import { SegmentsPage } from './pages/segments/segments-page';
import { SendingDomainDetailPage } from './pages/sending-domains/sending-domain-detail-page';
import { SendingDomainsPage } from './pages/sending-domains/sending-domains-page';
import { SignInPage } from './pages/sign-in';
import { WebhookDetailPage } from './pages/webhooks/webhook-detail-page';
import { WebhooksPage } from './pages/webhooks/webhooks-page';

function RequireOrganization({ children }: { children: ReactNode }) {
  const { signedIn, organization } = useSession();
  const location = useLocation();
  if (!signedIn) return <Navigate to="/sign-in" replace state={returnState(location)} />;
  if (!organization) return <Navigate to="/organizations" replace state={returnState(location)} />;
  return <>{children}</>;
}

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage /> },
    { path: '/organizations', element: <OrganizationsPage /> },
    {
      path: '/',
      element: (
        <RequireOrganization>
          <AppLayout />
        </RequireOrganization>
      ),
      children: [
        { index: true, element: <OverviewPage /> },
        { path: 'contacts', element: <ContactsPage /> },
        { path: 'contacts/:id', element: <ContactDetailPage /> },
        { path: 'lists', element: <ListsPage /> },
        { path: 'lists/:id', element: <ListDetailPage /> },
        { path: 'segments', element: <SegmentsPage /> },
        { path: 'segments/new', element: <SegmentEditorPage /> },
        { path: 'segments/:id', element: <SegmentEditorPage /> },
        { path: 'imports', element: <ImportsPage /> },
        { path: 'imports/new', element: <NewImportPage /> },
        { path: 'imports/:id', element: <ImportDetailPage /> },
        { path: 'messages', element: <MessagesPage /> },
        { path: 'messages/:jobId', element: <MessageDetailPage /> },
        { path: 'campaigns', element: <CampaignsPage /> },
        { path: 'campaigns/:id', element: <CampaignDetailPage /> },
        { path: 'revenue', element: <RevenuePage /> },
        { path: 'webhooks', element: <WebhooksPage /> },
        { path: 'webhooks/:id', element: <WebhookDetailPage /> },
        { path: 'api-keys', element: <ApiKeysPage /> },
        { path: 'sending-domains', element: <SendingDomainsPage /> },
        { path: 'sending-domains/:id', element: <SendingDomainDetailPage /> },
        { path: 'channels', element: <ChannelsPage /> },
        { path: 'channels/:id', element: <ChannelProviderDetailPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/dashboard' },
);
