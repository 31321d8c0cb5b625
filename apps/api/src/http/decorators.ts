// Route decorators: public routes, required scopes, the response message, the caller.
import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiExtension, ApiHeader, ApiSecurity } from '@nestjs/swagger';
import type { AuthContext, OrgId as DomainOrgId, Scope } from '@app/domain';
import type { Request } from 'express';

export const PUBLIC_ROUTE = 'route:public';
export const REQUIRED_SCOPES = 'route:scopes';
export const RESPONSE_MESSAGE = 'route:message';

/** No credential needed (health, login, tracking). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Authenticated route requiring every listed scope; documented in OpenAPI as `x-required-scopes`. */
export const RequireScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPES, scopes),
    ApiSecurity('apiKey'),
    ApiSecurity('bearer'),
    ApiHeader({
      name: 'X-Organization-Id',
      required: false,
      description: 'Required with an access token',
    }),
    ApiExtension('x-required-scopes', scopes),
  );

/** The `message` of the success envelope. */
export const ResponseMessage = (message: string) => SetMetadata(RESPONSE_MESSAGE, message);

export interface AuthedRequest extends Request {
  auth?: AuthContext;
  requestId?: string;
}

/**
 * The organization of the authenticated caller. Both a parameter decorator and its type, so a
 * controller writes `@OrgId() orgId: OrgId` with one import.
 */
export const OrgId = createParamDecorator((_: unknown, ctx: ExecutionContext): DomainOrgId => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.auth) throw new Error('OrgId used on a route without authentication');
  return req.auth.organizationId;
});
export type OrgId = DomainOrgId;

export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.auth) throw new Error('Auth used on a route without authentication');
  return req.auth;
});
