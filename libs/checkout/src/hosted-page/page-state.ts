import { PublicSessionView } from './public-session-view';

/*
 * What the page shows for a view, decided from the facts alone. page.js has the same functions,
 * written again in browser JavaScript (no build step); page-state.spec.ts checks that both agree.
 */

/** The state the customer sees. */
export type PagePhase = 'waiting' | 'confirming' | 'partial' | 'paid' | 'expired' | 'underpaid';

export interface PageState {
  phase: PagePhase;
  /** The pay panel (QR, address, amount) is offered: still Pending and something is due. */
  payable: boolean;
  /** Which amount heads the page, and under which label. */
  headline: 'amountToSend' | 'amountStillDue' | 'amountTotal';
  headlineAmount: string;
  /** Something was seen, so "received so far" is worth a line. */
  showReceived: boolean;
  /** Least-confirmed pending transfer: n of m. */
  confirmations: { n: number; m: number } | null;
  /**
   * Detection on the network is delayed or down: the page says payments show late but are safe.
   * Not once paid (nothing is left to wait for).
   */
  detectionNotice: boolean;
}

/** Compares two plain decimal strings exactly: -1, 0 or 1. */
export function compareDecimals(a: string, b: string): number {
  const [aInteger, aFraction = ''] = a.split('.');
  const [bInteger, bFraction = ''] = b.split('.');
  const ai = aInteger.replace(/^0+/, '');
  const bi = bInteger.replace(/^0+/, '');
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  const width = Math.max(aFraction.length, bFraction.length);
  const left = ai + aFraction.padEnd(width, '0');
  const right = bi + bFraction.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

function isZero(value: string): boolean {
  return compareDecimals(value, '0') === 0;
}

/**
 * `nowMs` is the server's clock (the client corrects its own with `server_time`): a Pending session
 * past `expires_at` already shows as what the expiry job will make of it.
 */
export function pageStateOf(view: PublicSessionView, nowMs: number): PageState {
  let status = view.status;
  if (status === 'Pending' && nowMs >= Date.parse(view.expires_at)) {
    status = isZero(view.amount_received) ? 'Expired' : 'Underpaid';
  }
  const seen = !isZero(view.amount_seen);
  const confirming = compareDecimals(view.amount_seen, view.amount_received) > 0;
  const due = !isZero(view.amount_due);
  let phase: PagePhase;
  if (status === 'Paid') phase = 'paid';
  else if (confirming) phase = 'confirming';
  else if (status === 'Expired') phase = 'expired';
  else if (status === 'Underpaid') phase = 'underpaid';
  else if (seen && due) phase = 'partial';
  else if (seen) phase = 'confirming';
  else phase = 'waiting';

  const payable = status === 'Pending' && due;
  const headline = payable ? (seen ? 'amountStillDue' : 'amountToSend') : 'amountTotal';
  let confirmations: PageState['confirmations'] = null;
  if (phase === 'confirming') {
    const pending = view.transactions.filter((transaction) => transaction.status === 'Pending');
    const m = view.confirmations_required;
    const n = pending.length
      ? Math.min(...pending.map((transaction) => transaction.confirmations))
      : m;
    confirmations = { n: Math.min(n, m), m };
  }
  return {
    phase,
    payable,
    headline,
    headlineAmount: headline === 'amountStillDue' ? view.amount_due : view.amount,
    showReceived: seen && phase !== 'paid',
    confirmations,
    detectionNotice:
      (view.detection === 'delayed' || view.detection === 'down') && phase !== 'paid',
  };
}

/** A short cache-busting tag for the QR image: FNV-1a (32 bits) of the payment URI, in hex. */
export function qrVersion(paymentUri: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < paymentUri.length; index += 1) {
    hash ^= paymentUri.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** Below this, the countdown is shown prominently; above it, quietly. */
export const URGENT_SECONDS = 5 * 60;

/** "14:05" or "1:02:03": time left, never negative. */
export function formatRemaining(milliseconds: number): string {
  const total = Math.max(0, Math.ceil(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const mm = hours ? String(minutes).padStart(2, '0') : String(minutes);
  const clock = `${mm}:${String(seconds).padStart(2, '0')}`;
  return hours ? `${hours}:${clock}` : clock;
}
