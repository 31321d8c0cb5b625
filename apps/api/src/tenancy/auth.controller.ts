import { Body, Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { LoginService, UserService } from '@app/domain';
import type { Request } from 'express';
import { Public, ResponseMessage } from '../http/decorators';
import { clientIp } from '../messaging/send-ip-limits';
import { LoginDto } from './auth.dto';

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
  @HttpCode(200)
  @ResponseMessage('Logged out successfully')
  async logout(@Headers('authorization') authorization?: string) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (token) await this.users.logout(token);
    return null;
  }
}
