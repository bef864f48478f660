import { Module } from '@nestjs/common';
import { ConsoleUiController } from './console-ui.controller';
import { ConsoleUiFiles } from './console-ui-files';

/** Serves the console's built single-page app at /console and /ops (docs/console.md). */
@Module({ controllers: [ConsoleUiController], providers: [ConsoleUiFiles] })
export class ConsoleUiModule {}
