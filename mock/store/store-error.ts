/** A store that cannot be opened or used as configured: the message says what to change. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/**
 * A commit sent whose answer never came (the connection closed first): it may or may not have been made. It is not
 * sent again nor run again, either of which could make it twice; whoever asked says so, and a retry finds out.
 */
export class CommitOutcomeUnknown extends StoreError {
  override name = 'CommitOutcomeUnknown';
}

/**
 * The store cannot be reached now (Redis down, its connection being made again): failed at once rather than held
 * until it comes back, so that whoever asked can answer that the service is unavailable and to retry.
 */
export class StoreUnavailable extends StoreError {
  override name = 'StoreUnavailable';
}

/**
 * The store's data is damaged (a SQLite page that is not what SQLite wrote): an outage that does not pass by itself.
 * The store answers every transaction with it until whoever runs the mock acts as its message says; retrying alone
 * never helps.
 */
export class StoreDamaged extends StoreError {
  override name = 'StoreDamaged';
}
