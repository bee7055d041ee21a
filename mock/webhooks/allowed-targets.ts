/**
 * Where a shared mock may deliver webhooks (`--webhook-allow`): hosts by name (`hooks.example.com`, `*.example.com`,
 * `localhost`), addresses (`10.1.2.3`, `::1`) and networks (`10.0.0.0/8`, `fd00::/8`). Anyone with a key can point
 * an endpoint anywhere; on a mock others reach, that would let them make it POST into the network it runs in (its
 * metadata service, a database's HTTP port) and learn from the answers what is there.
 *
 * A URL is deliverable when its host is listed by name, or is an address in a listed network, or is a name whose
 * addresses are: a name not listed is looked up at each connection, and only its addresses within the networks are
 * connected to, so a name that resolves elsewhere later (DNS rebinding) gets nowhere. Checked when an endpoint's URL
 * is set (a URL that can never be delivered to is refused) and at each attempt.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Agent } from 'undici';

export interface AllowedTargets {
  /** The list as given, for messages. */
  readonly listed: string;
  /** Why a URL's host can never be delivered to; undefined when it can (a name may still resolve outside). */
  hostProblem(hostname: string): string | undefined;
  /** A fetch that connects only where the list allows. */
  fetch: typeof fetch;
}

/** Parses the list; throws a RangeError naming an entry that is none of a name, an address or a network. */
export function allowedTargets(raw: string): AllowedTargets {
  const entries = raw.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  if (entries.length === 0) throw new RangeError('give at least one host, address or network');
  const names = new Set<string>();
  const suffixes: string[] = [];
  const networks = new BlockList();
  let hasNetworks = false;
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address);
    if (family !== 0) {
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) networks.addAddress(address, type);
      else {
        const bits = Number(prefix);
        if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) throw new RangeError(`${entry}: not a network (an address, then / and a prefix length)`);
        networks.addSubnet(address, bits, type);
      }
      hasNetworks = true;
    } else if (/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
      if (entry.startsWith('*.')) suffixes.push(entry.slice(1));
      else names.add(entry);
    } else {
      throw new RangeError(`${entry}: not a host name, an address or a network`);
    }
  }
  const listed = entries.join(', ');
  const inNetworks = (address: string) => networks.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  const byName = (host: string) => names.has(host) || suffixes.some((suffix) => host.endsWith(suffix));

  const hostProblem = (hostname: string): string | undefined => {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host) !== 0) return inNetworks(host) ? undefined : `${host} is not in --webhook-allow (${listed})`;
    if (byName(host) || hasNetworks) return undefined;
    return `${host} is not in --webhook-allow (${listed})`;
  };

  // Names not listed are looked up here, at each connection, and answered only with the addresses allowed.
  const lookup = (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
      if (error) return callback(error, []);
      const usable = byName(hostname.toLowerCase()) ? addresses : addresses.filter((found) => inNetworks(found.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves to ${addresses.map((found) => found.address).join(', ')}, outside --webhook-allow (${listed})`), { code: 'ENOTALLOWED' });
        return callback(refused, []);
      }
      if (options.all) return callback(null, usable);
      const [first] = usable as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
  // Made at the first delivery: the configuration parses the list to check it, and that makes no connection pool.
  // undici itself is loaded then too: a quarter of a second of a start that does not deliver with it.
  let client: Promise<{ agent: Agent; fetch: typeof import('undici').fetch }> | undefined;

  const guardedFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    // An address in the URL is never looked up: it is checked here, before anything is sent.
    const problem = hostProblem(url.hostname);
    if (problem) throw new TypeError('not sent', { cause: new Error(problem) });
    client ??= import('undici').then(({ Agent: AgentClass, fetch: undiciFetch }) => ({ agent: new AgentClass({ connect: { lookup: lookup as never } }), fetch: undiciFetch }));
    const { agent, fetch: connectedFetch } = await client;
    return (await connectedFetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
  }) as typeof fetch;

  return { listed, hostProblem, fetch: guardedFetch };
}
