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
