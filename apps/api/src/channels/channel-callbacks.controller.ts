// POST /channels/callbacks/{providerId} (§17): where providers post status reports and inbound
// messages. Public: trusted only through the provider's signature over this exact URL and body.
// GET on the same URL answers a provider's check of it (WhatsApp's `hub.challenge`), which only
// the account's own verification token passes.
import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { APP_CONFIG, ChannelCallbackService } from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Request, Response } from 'express';
import { Public } from '../http/decorators';

@ApiExcludeController()
@Public()
@Controller('channels/callbacks')
export class ChannelCallbacksController {
  constructor(
    private readonly callbacks: ChannelCallbackService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post(':providerId')
  @HttpCode(200)
  async receive(
    @Param('providerId') providerId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const query = req.originalUrl.includes('?')
      ? req.originalUrl.slice(req.originalUrl.indexOf('?'))
      : '';
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const reply = await this.callbacks.receive(providerId, {
      url: `${this.config.publicBaseUrl}/channels/callbacks/${encodeURIComponent(providerId)}${query}`,
      method: req.method,
      headers,
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    res.status(200).type(reply.contentType).send(reply.body);
  }

  @Get(':providerId')
  async handshake(
    @Param('providerId') providerId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const at = req.originalUrl.indexOf('?');
    const query = new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
    const answer = await this.callbacks.handshake(providerId, query);
    res.status(200).type('text/plain').send(answer);
  }
}
