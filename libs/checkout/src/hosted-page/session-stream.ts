import type { Request, Response } from 'express';
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

/**
 * One Server-Sent Events stream of a session's public view: the view at once, then every
 * change. `subscribe` registers for change notifications and returns the unsubscribe.
 */
export async function streamSession(
  request: Request,
  response: Response,
  first: PublicSessionView,
  load: () => Promise<PublicSessionView | null>,
  subscribe: (onChange: () => void) => Promise<() => void>,
  track: (end: () => void) => () => void,
): Promise<void> {
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  response.write('retry: 3000\n\n');
  let last = '';
  let closed = false;
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
      const next = await load();
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
  const unsubscribe = await subscribe(() => void refresh());
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
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(tick);
    clearInterval(heartbeat);
    clearTimeout(limit);
    unsubscribe();
    untrack();
    response.end();
  };
  const limit = setTimeout(end, MAX_STREAM_MS);
  const untrack = track(end);
  request.on('close', end);
}
