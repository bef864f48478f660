import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import compression from 'compression';
import { ConsoleUiController } from './console-ui.controller';
import { ConsoleUiFiles } from './console-ui-files';

/** Serves the console's built single-page app at /console and /ops (docs/console.md). */
@Module({ controllers: [ConsoleUiController], providers: [ConsoleUiFiles] })
export class ConsoleUiModule implements NestModule {
  /**
   * The app's scripts gzip to a third of their size (361 kB to 116 kB measured by bench:console);
   * the page and its assets are the only responses compressed, so the API's JSON and the hosted
   * page's event streams are left exactly as they were.
   */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(compression())
      .forRoutes(
        { path: 'console/assets/*path', method: RequestMethod.GET },
        { path: 'console', method: RequestMethod.GET },
      );
  }
}
