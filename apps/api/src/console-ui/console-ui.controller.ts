import { Controller, Get, Next, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { Public } from '@app/auth';
import { ConsoleUiFiles } from './console-ui-files';
import { setConsoleSecurityHeaders } from './console-ui-headers';

/**
 * Never the app's pages: the console's and the operators' JSON APIs (libs/console), and the
 * queue boards (/ops/queues, /ops/queues-admin), which answer their own paths.
 */
const NOT_PAGES = ['/console/api', '/ops/api', '/ops/queues', '/ops/queues-admin'];

function isUnderNonPage(path: string): boolean {
  return NOT_PAGES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * The console's single-page app (docs/console.md): its hashed assets, and its index.html for
 * every page path under /console and /ops, where the app's router takes over. No API key: the
 * page itself holds nothing; the calls it makes are authenticated by the session cookie.
 */
@ApiExcludeController()
@Public()
@Controller()
export class ConsoleUiController {
  constructor(private readonly files: ConsoleUiFiles) {}

  @Get('console/assets/:file')
  asset(@Param('file') file: string, @Res() response: Response): void {
    setConsoleSecurityHeaders(response);
    this.files.sendAsset(file, response);
  }

  @Get(['console', 'console/*path', 'ops', 'ops/*path'])
  page(@Req() request: Request, @Res() response: Response, @Next() next: NextFunction): void {
    // Not a page: an unknown API or queue board route answers the API's JSON 404, not HTML.
    const path = request.path;
    if (isUnderNonPage(path)) return next();
    setConsoleSecurityHeaders(response);
    this.files.sendIndex(path, response);
  }
}
