import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

// While draining, sockets that just finished their last response are closed this often.
const IDLE_SWEEP_MS = 100;

/**
 * The HTTP half of a graceful shutdown. `track` sees every request; `drain` stops accepting
 * connections, answers what is in flight (each response now says `Connection: close`), closes
 * idle keep-alive sockets as they free up, and ends event streams (the hosted page's live
 * updates never finish by themselves; EventSource reconnects to another process).
 */
export class HttpDrain {
  private readonly inFlight = new Set<Response>();
  private draining = false;

  /** Express middleware; install it before the routes. */
  readonly track = (_request: Request, response: Response, next: NextFunction): void => {
    if (this.draining) response.setHeader('Connection', 'close');
    this.inFlight.add(response);
    response.once('close', () => this.inFlight.delete(response));
    next();
  };

  /** Resolves true once nothing is in flight, or false when `deadline` (epoch ms) comes first. */
  async drain(server: Server, deadline: number): Promise<boolean> {
    this.draining = true;
    // Node also closes the idle keep-alive sockets here.
    server.close();
    for (const response of this.inFlight) {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    }
    while (this.inFlight.size && Date.now() < deadline) {
      this.sweep(server);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SWEEP_MS));
    }
    return this.inFlight.size === 0;
  }

  /** Waits for the last socket to close (keep-alive ones idle out at once), up to `deadline`. */
  async closed(server: Server, deadline: number): Promise<boolean> {
    while (server.listening || (await connectionCount(server)) > 0) {
      if (Date.now() >= deadline) {
        server.closeAllConnections();
        return false;
      }
      this.sweep(server);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SWEEP_MS));
    }
    return true;
  }

  private sweep(server: Server): void {
    for (const response of this.inFlight) {
      if (isEventStream(response)) response.socket?.destroy();
    }
    server.closeIdleConnections();
  }
}

function isEventStream(response: Response): boolean {
  return String(response.getHeader('Content-Type') ?? '').startsWith('text/event-stream');
}

function connectionCount(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((_, count) => resolve(count ?? 0)));
}
