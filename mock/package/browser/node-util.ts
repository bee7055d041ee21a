/** `node:util` in the browser build: `promisify` as Node's, for callback functions; no command line to parse. */
import { notInBrowser } from './not-in-browser.ts';

export function promisify<T>(run: (...args: never[]) => void): (...args: unknown[]) => Promise<T> {
  return (...args) => new Promise<T>((resolve, reject) => (run as (...all: unknown[]) => void)(...args, (error: unknown, value: T) => (error ? reject(error) : resolve(value))));
}

export const parseArgs = (): never => notInBrowser('Reading a command line');
