import { Module } from '@nestjs/common';

/** The merchant console's and the operator area's server side (docs/console.md). */
@Module({})
export class ConsoleModule {}
