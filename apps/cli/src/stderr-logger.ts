import { ConsoleLogger, LogLevel } from '@nestjs/common';

/** Nest's console logger, but on stderr: stdout carries only the command's JSON result. */
export class StderrLogger extends ConsoleLogger {
  protected printMessages(messages: unknown[], context?: string, logLevel?: LogLevel): void {
    super.printMessages(messages, context, logLevel, 'stderr');
  }
}
