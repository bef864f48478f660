import { Injectable, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { HOSTED_PAGE_ASSET_TYPES, HOSTED_PAGE_ASSETS_DIR } from './assets-dir';

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** The page's script and style, read once at start and served with an ETag. */
@Injectable()
export class PageAssets implements OnModuleInit {
  private readonly assets = new Map<string, Asset>();

  onModuleInit(): void {
    for (const [name, type] of Object.entries(HOSTED_PAGE_ASSET_TYPES)) {
      const body = readFileSync(join(HOSTED_PAGE_ASSETS_DIR, name));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
      this.assets.set(name, { body, type, etag });
    }
  }

  send(name: string, request: Request, response: Response): void {
    const asset = this.assets.get(name);
    if (!asset) {
      response.status(404).type('text/plain').send('Not found');
      return;
    }
    response.setHeader('ETag', asset.etag);
    response.setHeader('Cache-Control', 'public, max-age=300');
    if (request.headers['if-none-match'] === asset.etag) {
      response.status(304).end();
      return;
    }
    response.type(asset.type).send(asset.body);
  }
}
