/** Transient: worth retrying (timeouts, 5xx, rate limits, node down). Permanent: retrying won't help. */
export type ChainErrorKind = 'transient' | 'permanent';

/** Every error an adapter throws is one of these, so callers never parse provider messages. */
export class ChainError extends Error {
  constructor(
    readonly kind: ChainErrorKind,
    message: string,
    readonly network: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'ChainError';
  }

  get transient(): boolean {
    return this.kind === 'transient';
  }
}

/**
 * The node that answered lacks what was asked for yet (a block above its head, a null block): an
 * absence, which proves nothing. Behind a load-balanced RPC URL the next answer may come from a
 * backend that has it, so a caller retries promptly rather than backing off, and concludes nothing
 * from it (DESIGN.md section 4). Transient, so code that knows no better retries it as before.
 */
export class NotYetError extends ChainError {
  constructor(message: string, network: string) {
    super('transient', message, network);
    this.name = 'NotYetError';
  }
}
