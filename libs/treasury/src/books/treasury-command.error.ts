/** An operator's treasury command that cannot do what was asked; the message says why. */
export class TreasuryCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TreasuryCommandError';
  }
}
