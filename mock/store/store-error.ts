/** A store that cannot be opened or used as configured: the message says what to change. */
export class StoreError extends Error {
  override name = 'StoreError';
}
