// HTTP routes of login, logout and the user's organizations.
import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, CredentialService, LoginService } from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Request, Response } from 'express';
import { Public, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { isDashboardRequest, SessionCookie } from '../http/session-cookie';
import { clientIp } from '../messaging/send-ip-limits';
import { LoginDto } from './auth.dto';
import { LoginResponse, toLoginResponse } from './login.response';
import { toUserOrganizationResponse, UserOrganizationResponse } from './user-organization.response';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  private readonly sessionCookie: SessionCookie;

  constructor(
    private readonly credentials: CredentialService,
    private readonly logins: LoginService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sessionCookie = new SessionCookie(config);
  }

  /**
   * Exchanges email and password for a 24-hour access token (`at_...`). After 20 failures from
   * one IP, or 10 for one account, within 15 minutes: 429 until that window ends. With the header
   * `X-Requested-With: dashboard` the token is also set as the dashboard's session cookie
   * (HttpOnly, SameSite=Strict), accepted only with that header and kept alive by use for up to
   * 30 days.
   */
  @Public()
  @Post('login')
  @HttpCode(200)
  @ResponseMessage('Logged in successfully')
  @ApiEnvelope(LoginResponse)
  async login(
    @Body() dto: LoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const token = await this.logins.login(dto.email, dto.password, clientIp(req));
    if (isDashboardRequest(req)) this.sessionCookie.set(res, token.accessToken);
    return toLoginResponse(token);
  }

  /**
   * Revokes the access token sent as `Authorization: Bearer at_...` (or the dashboard's session
   * cookie, with its header) and clears the session cookie.
   */
  @Public()
  @Post('logout')
  @ApiSecurity('bearer')
  @HttpCode(200)
  @ResponseMessage('Logged out successfully')
  @ApiEnvelopeNull()
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    await this.credentials.logout(this.sessionCookie.presented(req));
    this.sessionCookie.clear(res);
    return null;
  }

  /**
   * The organizations the signed-in user belongs to, with the user's role in each: what a client
   * needs before it can send `X-Organization-Id`. Takes an access token only (an API key is bound
   * to one organization already and is refused with 401).
   */
  @Public()
  @Get('organizations')
  @ApiSecurity('bearer')
  @ApiEnvelope(UserOrganizationResponse, { isArray: true })
  @ResponseMessage('Organizations fetched successfully')
  async organizations(@Req() req: Request) {
    const organizations = await this.credentials.organizationsOf(this.sessionCookie.presented(req));
    return organizations.map(toUserOrganizationResponse);
  }
}
