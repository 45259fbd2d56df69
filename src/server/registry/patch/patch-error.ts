// Errors raised by the patch algorithms; the HTTP layer maps reason to a Status (400 / 422).

export type PatchErrorReason = 'BadRequest' | 'Invalid';

export class PatchError extends Error {
  constructor(
    readonly reason: PatchErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}
