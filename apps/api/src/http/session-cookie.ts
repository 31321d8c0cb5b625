// The dashboard's session cookie (§15): an access token the browser keeps where no script can read
// it, accepted only beside a header that a cross-site form cannot send.
import type { AppConfig, PresentedCredentials } from '@app/domain';
import { parse as parseCookies } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';

/** The header, and its value, that the dashboard sends with every call. */
export const DASHBOARD_HEADER = 'x-requested-with';
export const DASHBOARD_HEADER_VALUE = 'dashboard';

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The request came from the dashboard's own script: a form or a cross-site fetch cannot say so. */
export function isDashboardRequest(req: Request): boolean {
  return header(req, DASHBOARD_HEADER) === DASHBOARD_HEADER_VALUE;
}

/**
 * Over https the cookie is Secure and takes the `__Host-` prefix, so that no sibling subdomain can
 * set one in its place. No Max-Age or Expires: the browser drops it when it closes, and the token's
 * own expiry (sliding, capped) decides how long it is accepted.
 */
export class SessionCookie {
  readonly name: string;
  private readonly options: CookieOptions;

  constructor(config: Pick<AppConfig, 'publicBaseUrl'>) {
    const secure = new URL(config.publicBaseUrl).protocol === 'https:';
    this.name = secure ? '__Host-mp_session' : 'mp_session';
    this.options = { httpOnly: true, sameSite: 'strict', path: '/', secure };
  }

  /** The credentials a request presents, in the shape credential resolution (§3) takes. */
  presented(req: Request): PresentedCredentials {
    const apiKey = header(req, 'x-api-key');
    const authorization = header(req, 'authorization');
    // §3: the cookie counts only when neither of the others is present; API clients never pay
    // for parsing a Cookie header.
    const token = apiKey === undefined && authorization === undefined ? this.read(req) : undefined;
    return {
      apiKey,
      authorization,
      session: token === undefined ? undefined : { token, withHeader: isDashboardRequest(req) },
      organizationId: header(req, 'x-organization-id'),
    };
  }

  set(res: Response, token: string): void {
    res.cookie(this.name, token, this.options);
  }

  clear(res: Response): void {
    res.clearCookie(this.name, this.options);
  }

  private read(req: Request): string | undefined {
    const raw = header(req, 'cookie');
    if (!raw) return undefined;
    return parseCookies(raw)[this.name] || undefined;
  }
}
