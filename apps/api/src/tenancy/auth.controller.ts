// HTTP routes of login, logout and the user's organizations.
import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { LoginService, UnauthorizedAccessError, UserService } from '@app/domain';
import type { Request } from 'express';
import { BearerToken, Public, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { clientIp } from '../messaging/send-ip-limits';
import { LoginDto, UserOrganizationDto } from './auth.dto';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly users: UserService,
    private readonly logins: LoginService,
  ) {}

  /**
   * Exchanges email and password for a 24-hour access token (`at_...`). After 20 failures from
   * one IP, or 10 for one account, within 15 minutes: 429 until that window ends.
   */
  @Public()
  @Post('login')
  @HttpCode(200)
  @ResponseMessage('Logged in successfully')
  login(@Body() dto: LoginDto, @Req() req: Request) {
    return this.logins.login(dto.email, dto.password, clientIp(req));
  }

  /** Revokes the access token sent as `Authorization: Bearer at_...`. */
  @Public()
  @Post('logout')
  @ApiSecurity('bearer')
  @HttpCode(200)
  @ResponseMessage('Logged out successfully')
  async logout(@BearerToken() token?: string) {
    if (token) await this.users.logout(token);
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
  @ApiEnvelope(UserOrganizationDto, { isArray: true })
  @ResponseMessage('Organizations fetched successfully')
  async organizations(@BearerToken() token?: string) {
    if (!token) throw new UnauthorizedAccessError('An access token is required');
    const organizations = await this.users.organizationsOfToken(token);
    if (!organizations) throw new UnauthorizedAccessError('Invalid or expired access token');
    return organizations;
  }
}
