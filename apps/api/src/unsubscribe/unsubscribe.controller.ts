// The unsubscribe link (§14, RFC 8058): POST /u/{token} unsubscribes in one request, without a
// credential, cookie or confirmation, and answers 200 every time (idempotent); GET /u/{token}
// shows a page whose one button makes that POST. A token that does not verify is a 404.
import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { UnsubscribeService } from '@app/domain';
import type { Request, Response } from 'express';
import { Public } from '../http/decorators';
import { clientIp } from '../messaging/send-ip-limits';
import { CONFIRM_PAGE, DONE_PAGE, PAGE_SECURITY_POLICY } from './unsubscribe-page';

function html(res: Response, body: string): void {
  res
    .status(200)
    .set({
      'Cache-Control': 'no-store, max-age=0',
      'Content-Security-Policy': PAGE_SECURITY_POLICY,
      'Referrer-Policy': 'no-referrer',
    })
    .type('html')
    .send(body);
}

@ApiExcludeController()
@Public()
@Controller('u')
export class UnsubscribeController {
  constructor(private readonly unsubscribes: UnsubscribeService) {}

  @Get(':token')
  async page(@Param('token') token: string, @Res() res: Response) {
    await this.unsubscribes.target(token);
    html(res, CONFIRM_PAGE);
  }

  /** Mail clients send `List-Unsubscribe=One-Click` form-encoded; the body is not required. */
  @Post(':token')
  @HttpCode(200)
  async unsubscribe(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    await this.unsubscribes.unsubscribe(token, 'one-click', {
      userAgent: req.get('user-agent') ?? null,
      remoteIp: clientIp(req),
    });
    html(res, DONE_PAGE);
  }
}
