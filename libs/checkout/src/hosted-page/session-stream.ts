import type { Response } from 'express';
import { setNoStore } from './page-headers';
import { PublicSessionView } from './public-session-view';

// While a transfer confirms, its count moves with every block without a row changing.
const CONFIRMING_REFRESH_MS = 3_000;
// Otherwise changes arrive by NOTIFY; this only covers a lost listener connection.
const IDLE_REFRESH_MS = 20_000;
// Comments keep proxies from closing an idle stream.
const HEARTBEAT_MS = 15_000;
// Streams end after this long; EventSource reconnects by itself (spreads load across processes).
const MAX_STREAM_MS = 30 * 60_000;

/** What changed for the payer, ignoring the server clock that moves on every read. */
function fingerprint(view: PublicSessionView): string {
  return JSON.stringify({ ...view, server_time: null });
}

/** Where a stream reads its session and learns of its changes. */
export interface SessionStreamSource {
  /** The session's public view; null when there is no such session. */
  load: () => Promise<PublicSessionView | null>;
  /** Registers for change notifications; returns the unsubscribe. */
  subscribe: (onChange: () => void) => Promise<() => void>;
  /** Registers the stream's end, for shutdown; returns the unregister. */
  track: (end: () => void) => () => void;
}

/**
 * One Server-Sent Events stream of a session's public view: the view at once, then every
 * change; a 404 for an unknown session. `release` is called once, when the response is over,
 * however it ends (payer gone, 404, error, shutdown, time limit).
 *
 * The payer may leave at any moment, also while the setup awaits the database or the change
 * listener: a close listener registered after those awaits never heard a close that came during
 * them, and the stream polled the database for 30 minutes. So the listener and the shutdown's
 * tracking come first, and each step after an await checks that the stream is still wanted.
 */
export async function streamSession(
  response: Response,
  source: SessionStreamSource,
  release: () => void,
): Promise<void> {
  const cleanups: Array<() => void> = [release];
  let closed = false;
  const end = () => {
    if (closed) return;
    closed = true;
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    if (!response.writableEnded && !response.destroyed) response.end();
  };
  /** Runs `cleanup` when the stream ends, or now if it has ended already. */
  const onEnd = (cleanup: () => void) => (closed ? cleanup() : void cleanups.push(cleanup));
  // Also ends a response answered otherwise (404, an error): its close follows its finish.
  response.on('close', end);
  // Shutdown may come during any await below (the first subscription opens the LISTEN connection,
  // slow on a loaded machine): tracked only after them, such a stream held the server's close open.
  onEnd(source.track(end));
  // A payer who left while the guards ran (the rate limiter awaits Redis) closed before we listened.
  if (response.destroyed) return end();

  const first = await source.load();
  if (closed) return;
  if (!first) {
    setNoStore(response);
    response.status(404).json({ error: 'not_found' });
    return;
  }
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  response.write('retry: 3000\n\n');
  let last = '';
  const send = (view: PublicSessionView) => {
    const current = fingerprint(view);
    if (current === last || closed) return;
    last = current;
    response.write(`event: session\ndata: ${JSON.stringify(view)}\n\n`);
  };
  let refreshing = false;
  let view = first;
  const refresh = async () => {
    if (refreshing || closed) return;
    refreshing = true;
    try {
      const next = await source.load();
      if (next) {
        view = next;
        send(next);
      }
    } catch {
      // A failed read is retried by the next tick or notification.
    } finally {
      refreshing = false;
    }
  };
  send(first);
  onEnd(await source.subscribe(() => void refresh()));
  if (closed) return;

  let sinceRefresh = 0;
  const tick = setInterval(() => {
    sinceRefresh += 1_000;
    const confirming = view.transactions.some((transaction) => transaction.status === 'Pending');
    if (sinceRefresh >= (confirming ? CONFIRMING_REFRESH_MS : IDLE_REFRESH_MS)) {
      sinceRefresh = 0;
      void refresh();
    }
  }, 1_000);
  const heartbeat = setInterval(() => response.write(': ping\n\n'), HEARTBEAT_MS);
  const limit = setTimeout(end, MAX_STREAM_MS);
  onEnd(() => {
    clearInterval(tick);
    clearInterval(heartbeat);
    clearTimeout(limit);
  });
}
