import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { clientAddressOf } from '@app/common';
import { HOSTED_PAGE_PATH } from '../checkout-session.mapper';
import { PageAssets } from './page-assets';
import { setNoStore, setPageSecurityHeaders } from './page-headers';
import { negotiateLocale } from './locale';
import { PublicSessions } from './public-sessions';
import { qrSvg } from './qr';
import { renderCheckoutPage, renderNotFoundPage } from './render-page';
import { SessionChanges } from './session-changes';
import { streamSession } from './session-stream';
import { StreamSlots, tooManyStreams } from './stream-slots';

export const HOSTED_PAGE_ASSET_BASE = `${HOSTED_PAGE_PATH}/assets`;

/**
 * The hosted checkout page at a session's `url`: HTML with everything a payer needs, its public
 * state as JSON (polling fallback), the state as Server-Sent Events, the QR code and the page's
 * own script and style. No API key: the unguessable session id is the credential.
 */
@ApiExcludeController()
@Public()
@Controller(HOSTED_PAGE_PATH.slice(1))
export class HostedCheckoutController {
  constructor(
    private readonly sessions: PublicSessions,
    private readonly changes: SessionChanges,
    private readonly assets: PageAssets,
    private readonly streamSlots: StreamSlots,
  ) {}

  @Get('assets/:file')
  asset(@Param('file') file: string, @Req() request: Request, @Res() response: Response): void {
    setPageSecurityHeaders(response);
    this.assets.send(file, request, response);
  }

  @Get(':id')
  async page(
    @Param('id') id: string,
    @Query('locale') queryLocale: string | undefined,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const locale = negotiateLocale(queryLocale, acceptLanguage);
    setPageSecurityHeaders(response);
    setNoStore(response);
    response.setHeader('Content-Language', locale);
    response.setHeader('Vary', 'Accept-Language');
    const view = await this.sessions.find(id);
    response.type('html');
    if (!view) {
      response.status(404).send(renderNotFoundPage(locale, { assetBase: HOSTED_PAGE_ASSET_BASE }));
      return;
    }
    response.send(
      renderCheckoutPage(view, {
        locale,
        assetBase: HOSTED_PAGE_ASSET_BASE,
        basePath: HOSTED_PAGE_PATH,
      }),
    );
  }

  @Get(':id/state')
  async state(@Param('id') id: string, @Res() response: Response): Promise<void> {
    setPageSecurityHeaders(response);
    setNoStore(response);
    const view = await this.sessions.find(id);
    if (!view) {
      response.status(404).json({ error: 'not_found' });
      return;
    }
    response.json(view);
  }

  @Get(':id/stream')
  async stream(
    @Param('id') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    setPageSecurityHeaders(response);
    const release = this.streamSlots.take(clientAddressOf(request));
    if (!release) throw tooManyStreams(this.streamSlots.perClientLimit);
    await streamSession(
      response,
      {
        load: () => this.sessions.find(id),
        subscribe: (onChange) => this.changes.subscribe(id, onChange),
        track: (end) => this.changes.track(end),
      },
      release,
    );
  }

  @Get(':id/qr.svg')
  async qr(@Param('id') id: string, @Res() response: Response): Promise<void> {
    setPageSecurityHeaders(response);
    setNoStore(response);
    const view = await this.sessions.find(id);
    if (!view) {
      response.status(404).json({ error: 'not_found' });
      return;
    }
    response.type('image/svg+xml').send(await qrSvg(view.payment_uri));
  }
}
