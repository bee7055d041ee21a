/**
 * A problem the person running the tests fixes (a variable, an option, a file to generate): its message says it
 * all, so it is reported alone, without a stack, and the run exits with status 2.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
