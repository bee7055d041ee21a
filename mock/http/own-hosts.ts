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
 *
 * A name is the mock's only when it is a name DNS could hold (at most 253 characters, labels of at most 63 letters,
 * digits, `-` or `_`): a link made from a 5,000-character `Host` would break the contract's own `maxLength` on URLs.
 * The port is not checked, nor is which address an IP literal is: behind `docker run -p 8080:4010` or a forwarded
 * port the client reaches the mock at a port and address it does not listen on, and those are where its links must
 * point. Neither can come from DNS rebinding, which needs a name. Links use the host as URL parsing writes it
 * (`0x7f.1` is `127.0.0.1`), so that one address is always written one way.
 */
import { hostname } from 'node:os';
import { isIP } from 'node:net';

export interface OwnHosts {
  /** Whether a `Host` header names the mock. */
  answers(host: string | undefined): boolean;
  /** The `Host` as URL parsing writes it (`localhost:4010`) when it names the mock; otherwise undefined. */
  own(host: string | undefined): string | undefined;
}

export function ownHosts(given: readonly string[]): OwnHosts {
  const names = new Set(['localhost', hostname().toLowerCase(), ...given.map((host) => host.toLowerCase())]);
  const own = (host: string | undefined): string | undefined => {
    const parsed = host === undefined ? undefined : parsedHost(host);
    if (parsed === undefined) return undefined;
    const { name } = parsed;
    return names.has(name) || name.endsWith('.localhost') || isIP(name.replace(/^\[|\]$/g, '')) !== 0 ? parsed.host : undefined;
  };
  return { answers: (host) => own(host) !== undefined, own };
}

/** The URL links are made with, for a request that came with `host` (see above). */
export function linkBase(options: { publicUrl?: string; hosts: OwnHosts; listening: () => string }): (host: string | undefined) => string {
  const { publicUrl, hosts, listening } = options;
  if (publicUrl !== undefined) return () => publicUrl;
  return (host) => {
    const own = hosts.own(host);
    return own === undefined ? listening() : `http://${own}`;
  };
}

const maxNameLength = 253;
const label = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A `Host` header (`localhost:4010`, `[::1]:4010`) as URL parsing writes it, `host` with its port and `name`
 * without; undefined when it is not a host, or names one DNS could not hold.
 */
function parsedHost(host: string): { host: string; name: string } | undefined {
  if (host === '' || host.length > maxNameLength + 8 || /[\s/\\?#@]/.test(host)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return undefined;
  }
  const name = url.hostname;
  const isAddress = name.startsWith('[') || isIP(name) !== 0;
  if (!isAddress && (name.length > maxNameLength || !name.replace(/\.$/, '').split('.').every((part) => label.test(part)))) return undefined;
  return { host: url.host, name };
}
