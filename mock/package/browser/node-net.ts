/** `node:net` in the browser build: telling an IP address (4 or 6) from a name, as Node's `isIP` does; nothing that connects. */
import { notInBrowser } from './not-in-browser.ts';

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isIP(input: string): 0 | 4 | 6 {
  if (ipv4.test(input)) return 4;
  if (!input.includes(':')) return 0;
  try {
    // The URL parser reads an IPv6 address as the spec says, and refuses what is not one.
    new URL(`http://[${input}]/`);
    return 6;
  } catch {
    return 0;
  }
}

export class BlockList {
  constructor() {
    notInBrowser('Checking webhook targets (--webhook-allow)');
  }
}
