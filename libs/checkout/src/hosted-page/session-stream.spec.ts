import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { streamSession } from './session-stream';
import { sessionView } from './testing/session-view.fixture';

/** Just enough of an express Response for a stream: what it wrote and whether it ended. */
class FakeResponse extends EventEmitter {
  written: string[] = [];
  writableEnded = false;
  destroyed = false;
  writeHead(): this {
    return this;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    return true;
  }
  end(): this {
    this.writableEnded = true;
    this.emit('close');
    return this;
  }
}

/** Shutdown as SessionChanges does it: every tracked stream's end, called once. */
class Shutdown {
  private readonly ends = new Set<() => void>();
  track = (end: () => void) => {
    this.ends.add(end);
    return () => this.ends.delete(end);
  };
  run(): void {
    for (const end of [...this.ends]) end();
  }
}

describe('streamSession at shutdown', () => {
  it('ends a stream whose change subscription is still opening when the process shuts down', async () => {
    const response = new FakeResponse();
    const shutdown = new Shutdown();
    let subscribed!: (unsubscribe: () => void) => void;
    const release = jest.fn();
    const streaming = streamSession(
      response as unknown as Response,
      {
        load: async () => sessionView(),
        // The first page of a process opens the LISTEN connection: slow on a loaded machine.
        subscribe: () => new Promise((resolve) => (subscribed = resolve)),
        track: shutdown.track,
      },
      release,
    );
    // The payer has the first view; the subscription has not answered yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(response.written.some((chunk) => chunk.startsWith('event: session'))).toBe(true);

    shutdown.run();
    expect(response.writableEnded).toBe(true);
    expect(release).toHaveBeenCalledTimes(1);

    // The subscription answering afterwards is given back at once, and nothing is left running.
    const unsubscribe = jest.fn();
    subscribed(unsubscribe);
    await streaming;
    expect(unsubscribe).toHaveBeenCalledTimes(1);
    expect(release).toHaveBeenCalledTimes(1);
  });
});
