// The signed-in user's session: access token and chosen organization, kept in memory only (a
// reload signs out, so the token never sits in storage a script could read).
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { api, dataOf, setCredentials, setUnauthorizedHandler } from '../api/client';
import type { LoginResult, UserOrganization } from '../api/models';

interface SessionState {
  token: string | null;
  organizations: UserOrganization[];
  organization: UserOrganization | null;
  /** Why the last session ended, shown on the sign-in page. */
  endedBecause: string | null;
}

export interface Session extends SessionState {
  signIn(email: string, password: string): Promise<void>;
  selectOrganization(id: string): void;
  signOut(): Promise<void>;
}

const EMPTY: SessionState = {
  token: null,
  organizations: [],
  organization: null,
  endedBecause: null,
};
const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>(EMPTY);
  const queries = useQueryClient();

  // Set while rendering, before any child renders and starts a query with the old organization.
  setCredentials({ token: state.token, organizationId: state.organization?.id ?? null });

  const end = useCallback(
    (reason: string | null) => {
      setCredentials({ token: null, organizationId: null });
      queries.clear();
      setState({ ...EMPTY, endedBecause: reason });
    },
    [queries],
  );

  useEffect(() => {
    setUnauthorizedHandler(() => end('Your session has expired. Please sign in again.'));
  }, [end]);

  const signIn = useCallback(async (email: string, password: string) => {
    const login = await dataOf<LoginResult>(
      api.POST('/api/v1/auth/login', { body: { email, password } }),
    );
    setCredentials({ token: login.accessToken, organizationId: null });
    const organizations = await dataOf<UserOrganization[]>(api.GET('/api/v1/auth/organizations'));
    setState({
      token: login.accessToken,
      organizations,
      organization: organizations.length === 1 ? organizations[0] : null,
      endedBecause: null,
    });
  }, []);

  const selectOrganization = useCallback(
    (id: string) => {
      queries.clear();
      setState((s) => ({ ...s, organization: s.organizations.find((o) => o.id === id) ?? null }));
    },
    [queries],
  );

  const signOut = useCallback(async () => {
    // The token is revoked server-side; whatever the answer, this tab forgets it.
    await api.POST('/api/v1/auth/logout').catch(() => undefined);
    end(null);
  }, [end]);

  const value = useMemo(
    () => ({ ...state, signIn, selectOrganization, signOut }),
    [state, signIn, selectOrganization, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
