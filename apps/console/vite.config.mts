import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/*
 * The console is served by the API at /console (apps/api/src/console-ui) under a strict CSP:
 * no inline script or style, so no module-preload polyfill (it is an inline script) and CSS only
 * in files. Built into dist/console, which the API serves from the repository root or the image.
 */
export default defineConfig(({ command }) => {
  // A build is for production whoever runs it: under Jest (NODE_ENV=test) Vite would otherwise
  // bundle React's development build and the libraries' development exports, 60% larger.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root,
    base: '/console/',
    oxc: { jsx: { runtime: 'automatic', development: false } },
    build: {
      outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
      emptyOutDir: true,
      modulePreload: { polyfill: false },
      // Inlined assets become data: URLs; keep every asset a file the CSP allows as 'self'.
      assetsInlineLimit: 0,
      sourcemap: false,
      rolldownOptions: {
        // React libraries mark modules "use client" for server components; a client bundle has none.
        onwarn(warning, warn) {
          if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
        },
      },
    },
  };
});
