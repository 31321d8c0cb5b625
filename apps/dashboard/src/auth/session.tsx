// The signed-in user's session. The credential is the api's HttpOnly session cookie, which no
// script can read: whether it is still good is learnt by asking the api for the user's
// organizations, at load and after sign-in. The chosen organization's id (no secret) is kept in
// localStorage, so a reload or a new tab returns to it.
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { api, dataOf, setCredentials, setUnauthorizedHandler } from '../api/client';
import { ApiError, errorMessage } from '../api/errors';
import type { components } from '../api/schema';
import { Loading } from '../components/query-state';

type UserOrganization = components['schemas']['UserOrganizationResponse'];

const ORGANIZATION_KEY = 'dashboard.organizationId';

interface SessionState {
  signedIn: boolean;
  organizations: UserOrganization[];
  organization: UserOrganization | null;
  /** Why the last session ended (or could not be checked), shown on the sign-in page. */
  endedBecause: string | null;
}

export interface Session extends SessionState {
  signIn(email: string, password: string): Promise<void>;
  selectOrganization(id: string): void;
  signOut(): Promise<void>;
}

const SIGNED_OUT: SessionState = {
  signedIn: false,
  organizations: [],
  organization: null,
  endedBecause: null,
};
const SessionContext = createContext<Session | null>(null);

function storedOrganizationId(): string | null {
  try {
    return window.localStorage.getItem(ORGANIZATION_KEY);
  } catch {
    return null; // storage disabled: the picker asks again
  }
}

function storeOrganizationId(id: string): void {
  try {
    window.localStorage.setItem(ORGANIZATION_KEY, id);
  } catch {
    // storage disabled: the choice lasts as long as the page
  }
}

function fetchOrganizations(): Promise<UserOrganization[]> {
  return dataOf(api.GET('/api/v1/auth/organizations'));
}

/** The user's session from their organizations: the stored choice, else the only one. */
function signedIn(organizations: UserOrganization[]): SessionState {
  const stored = storedOrganizationId();
  return {
    signedIn: true,
    organizations,
    organization:
      organizations.find((o) => o.id === stored) ??
      (organizations.length === 1 ? organizations[0] : null),
    endedBecause: null,
  };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  // null while the cookie is being checked at load.
  const [state, setState] = useState<SessionState | null>(null);
  const queries = useQueryClient();

  // Set while rendering, before any child renders and starts a query with the old organization.
  setCredentials({
    signedIn: state?.signedIn ?? false,
    organizationId: state?.organization?.id ?? null,
  });

  useEffect(() => {
    let live = true;
    fetchOrganizations().then(
      (organizations) => live && setState(signedIn(organizations)),
      (err: unknown) => {
        // A 401 is simply no session; anything else is worth saying on the sign-in page.
        const reason = err instanceof ApiError && err.status === 401 ? null : errorMessage(err);
        if (live) setState({ ...SIGNED_OUT, endedBecause: reason });
      },
    );
    return () => {
      live = false;
    };
  }, []);

  const end = useCallback(
    (reason: string | null) => {
      setCredentials({ signedIn: false, organizationId: null });
      queries.clear();
      setState({ ...SIGNED_OUT, endedBecause: reason });
    },
    [queries],
  );

  useEffect(() => {
    setUnauthorizedHandler(() => end('Your session has expired. Please sign in again.'));
  }, [end]);

  const signIn = useCallback(async (email: string, password: string) => {
    // The answer sets the session cookie; the token in its body is not kept.
    await dataOf(api.POST('/api/v1/auth/login', { body: { email, password } }));
    setState(signedIn(await fetchOrganizations()));
  }, []);

  const selectOrganization = useCallback(
    (id: string) => {
      queries.clear();
      storeOrganizationId(id);
      setState(
        (s) => s && { ...s, organization: s.organizations.find((o) => o.id === id) ?? null },
      );
    },
    [queries],
  );

  const signOut = useCallback(async () => {
    // The api revokes the token and clears the cookie; whatever the answer, this tab signs out.
    await api.POST('/api/v1/auth/logout').catch(() => undefined);
    end(null);
  }, [end]);

  const value = useMemo(
    () => state && { ...state, signIn, selectOrganization, signOut },
    [state, signIn, selectOrganization, signOut],
  );
  if (!value) return <Loading label="Checking your session" />;
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
