/**
 * The part of Dredd 14's hooks API that hooks.ts uses. Dredd ships no types: it hands a hook file its Hooks
 * object as the module `hooks` (substituted into `require` while it loads the file).
 */
declare module 'hooks' {
  /** One request-response pair Dredd compiled from the description, as the hooks see and may change it. */
  export interface Transaction {
    /** "path template > summary > status > media type": stable, unlike `id`. */
    name: string;
    /** What the reporter shows for the transaction. */
    id: string;
    /** The path Dredd requests: the server URL's path and `request.uri`. */
    fullPath: string;
    origin: { resourceName: string };
    request: { method: string; uri: string; headers: Record<string, string>; body: string };
    expected: { statusCode: string; headers: Record<string, string> };
    /** What the server answered, once it has. */
    real?: { statusCode: number | string; headers: Record<string, string>; body: string };
    skip: boolean;
    /** A message fails the transaction with it. */
    fail: boolean | string;
  }

  type Done = () => void;

  interface Hooks {
    beforeAll(hook: (transactions: Transaction[], done: Done) => void): void;
    beforeEach(hook: (transaction: Transaction, done: Done) => void): void;
    afterEach(hook: (transaction: Transaction, done: Done) => void): void;
    afterAll(hook: (transactions: Transaction[], done: Done) => void): void;
  }

  const hooks: Hooks;
  export default hooks;
}
