/** `node:os` in the browser build: a page has no host name of its own and no network interfaces to list. */
export const hostname = (): string => 'localhost';
export const networkInterfaces = (): Record<string, never[]> => ({});
export const tmpdir = (): string => '/tmp';
