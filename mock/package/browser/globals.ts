/**
 * The two globals of Node the mock's modules use, for the browser build (injected by esbuild before any of them
 * runs): `Buffer`, from the `buffer` package (the Node API for browsers), and the part of `process` they read (the
 * high-resolution clock a request's duration is measured with, an empty environment).
 */
import { Buffer } from 'buffer';

const started = performance.now();
const processInBrowser = {
  env: {} as Record<string, string | undefined>,
  versions: {} as Record<string, string>,
  stdout: { isTTY: false },
  cwd: () => '/',
  hrtime: { bigint: () => BigInt(Math.round((performance.now() - started) * 1e6)) },
};

const scope = globalThis as unknown as { Buffer?: typeof Buffer; process?: unknown };
scope.Buffer ??= Buffer;
scope.process ??= processInBrowser;

export { Buffer };
