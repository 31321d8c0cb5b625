import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { UserService } from '@app/domain';
import { Public, ResponseMessage } from '../http/decorators';
import { LoginDto } from './auth.dto';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(private readonly users: UserService) {}

  /** Exchanges email and password for a 24-hour access token (`at_...`). */
  @Public()
  @Post('login')
  @HttpCode(200)
  @ResponseMessage('Logged in successfully')
  login(@Body() dto: LoginDto) {
    return this.users.login(dto.email, dto.password);
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
