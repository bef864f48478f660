import { join } from 'node:path';

/**
 * The folder of page.js and page.css: beside this file both in the sources (ts-node, Jest) and
 * in the build, where nest-cli.json's `assets` copies them next to the compiled file.
 */
export const HOSTED_PAGE_ASSETS_DIR = join(__dirname, 'assets');

/** The files in it, with their content types. */
export const HOSTED_PAGE_ASSET_TYPES: Readonly<Record<string, string>> = {
  'page.js': 'text/javascript; charset=utf-8',
  'page.css': 'text/css; charset=utf-8',
};
