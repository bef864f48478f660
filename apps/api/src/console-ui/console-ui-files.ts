import { Injectable } from '@nestjs/common';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'express';
import { ApiException, ErrorCode } from '@app/common';
import { findConsoleDistDir } from './console-dist-dir';

// Vite names every asset after its content hash: a name never changes content.
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css|svg|png|woff2)$/;
const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** The built console on disk (dist/console), found on first use so a later build is picked up. */
@Injectable()
export class ConsoleUiFiles {
  private dir: string | null = null;
  private index: { mtimeMs: number; body: Buffer } | null = null;

  sendIndex(path: string, response: Response): void {
    // A path that names a file (favicon.ico, a stale asset) is not a page of the app.
    if (/\.[a-z0-9]+$/i.test(path)) {
      response.status(404).type('text/plain').send('Not found');
      return;
    }
    const file = join(this.distDir(), 'index.html');
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      // Removed since it was found (a rebuild under way, `rm -rf dist`): look again next time.
      this.dir = null;
      this.index = null;
      throw notBuilt();
    }
    if (this.index?.mtimeMs !== mtimeMs) this.index = { mtimeMs, body: readFileSync(file) };
    // Always revalidated: it names the current build's assets.
    response.setHeader('Cache-Control', 'no-cache');
    response.type('html').send(this.index.body);
  }

  sendAsset(name: string, response: Response): void {
    if (!ASSET_NAME.test(name)) {
      response.status(404).type('text/plain').send('Not found');
      return;
    }
    response.sendFile(
      name,
      { root: join(this.distDir(), 'assets'), maxAge: ONE_YEAR_MS, immutable: true },
      (error?: Error & { status?: number }) => {
        if (error && !response.headersSent) {
          response
            .status(error.status === 404 ? 404 : 500)
            .type('text/plain')
            .send('Not found');
        }
      },
    );
  }

  private distDir(): string {
    this.dir ??= findConsoleDistDir();
    if (!this.dir) throw notBuilt();
    return this.dir;
  }
}

function notBuilt(): ApiException {
  return new ApiException(
    ErrorCode.ServiceUnavailable,
    'The console is not built: run `npm run console:build` (or `npm run build`).',
  );
}
