// HTTP transport of tracking: the open pixel /t/o/{token}.gif and the click redirect /t/c/{token}.
import { Controller, Get, Header, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { NotFoundError, TrackingService } from '@app/domain';
import type { Request, Response } from 'express';
import { Public } from '../http/decorators';
import { clientIp } from './send-ip-limits';

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

function trackingRequest(req: Request) {
  return { userAgent: req.get('user-agent'), remoteIp: clientIp(req) };
}

/** Open pixel and click redirect (§8). A token that does not verify is a 404, never a redirect. */
@ApiExcludeController()
@Public()
@Controller('t')
export class TrackingController {
  constructor(private readonly tracking: TrackingService) {}

  @Get('o/:file')
  @Header('Cache-Control', 'no-store, max-age=0')
  async open(@Param('file') file: string, @Req() req: Request, @Res() res: Response) {
    if (!file.endsWith('.gif')) throw new NotFoundError('Tracking link');
    await this.tracking.open(file.slice(0, -4), trackingRequest(req));
    res.status(200).type('image/gif').send(PIXEL);
  }

  @Get('c/:token')
  @Header('Cache-Control', 'no-store, max-age=0')
  async click(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    const url = await this.tracking.click(token, trackingRequest(req));
    res.redirect(302, url);
  }
}
