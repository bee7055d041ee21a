/**
 * The names the mock answers to, and the URL its links are made with.
 *
 * A `Host` is the mock's own when it is `localhost` or a name under `.localhost`, an IP address, the machine's own
 * name, or one of the names it was given (`--host`, the host of `--public-url`); any other is refused by the admin
 * routes (DNS rebinding, admin/admin-guard.ts).
 *
 * A link the mock makes (a document's download URL, a relay's URL, the server of the contract it serves) is made
 * with `--public-url` when it has one: behind a tunnel or a proxy, that is where clients reach it. Otherwise with the
 * host the client used, when it is one of the mock's own names, so that a page loaded from `localhost:4010` gets
 * links to `localhost:4010` (a page of one origin may not frame another's); otherwise with the address it listens on.
 */
import { hostname } from 'node:os';
import { isIP } from 'node:net';

export interface OwnHosts {
  /** Whether a `Host` header names the mock. */
  answers(host: string | undefined): boolean;
}

export function ownHosts(given: readonly string[]): OwnHosts {
  const names = new Set(['localhost', hostname().toLowerCase(), ...given.map((host) => host.toLowerCase())]);
  return {
    answers(host) {
      const name = host === undefined ? undefined : hostName(host);
      return name !== undefined && (names.has(name) || name.endsWith('.localhost') || isIP(name.replace(/^\[|\]$/g, '')) !== 0);
    },
  };
}

/** The URL links are made with, for a request that came with `host` (see above). */
export function linkBase(options: { publicUrl?: string; hosts: OwnHosts; listening: () => string }): (host: string | undefined) => string {
  const { publicUrl, hosts, listening } = options;
  if (publicUrl !== undefined) return () => publicUrl;
  return (host) => (host !== undefined && hosts.answers(host) ? `http://${host.toLowerCase()}` : listening());
}

/** The host name of a `Host` header (`localhost:4010`, `[::1]:4010`), lower-cased; undefined when it is not one. */
function hostName(host: string): string | undefined {
  if (host === '' || /[\s/\\?#@]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
