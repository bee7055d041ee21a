/**
 * What keeps a web page of another site from driving a developer's local mock: the admin routes can arm faults,
 * switch response checks off, reset and seed the store, and read every partner's journal, and a browser lets any
 * page send requests to localhost. So an admin request is refused when
 * - its `Origin` is not the mock's own (a page of another site; a browser always sends `Origin` on such requests),
 * - its `Host` is not a name the mock answers to (DNS rebinding: a site whose name resolves to 127.0.0.1 would
 *   otherwise be "same origin" with the mock), or
 * - the mock has an admin token and the request does not carry it: one given (`--admin-token`, for a mock shared on
 *   a network), or one the mock made because its `--public-url` reaches it from beyond this machine (a tunnel's
 *   agent connects from loopback and passes on the public Host, so without a token the admin routes would be on
 *   the internet), or
 * - it has none and the request comes from another machine, or through a proxy (`Forwarded`, `X-Forwarded-For`…:
 *   whoever sent it may be anywhere): the routes read and reset every partner's data, so a mock others reach
 *   shares them only behind a token, or
 * - it is a webhook delivery (it carries `webhook-id`, as every delivery the mock, its relay and the receiver
 *   grader send does): an endpoint's URL may name the mock's own admin routes (`http://127.0.0.1:4010/_mock/reset`),
 *   and its deliveries, sent from this machine, would otherwise act as this machine's admin calls (every partner's
 *   data reset by one partner's endpoint). The relay, which takes deliveries, is not behind this guard.
 */
import { timingSafeEqual, createHash, randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../../generated/openapi.js';
import { ownHosts } from '../http/own-hosts.ts';

export const adminTokenHeader = 'x-mock-admin-token';

export type AdminRefusalCode = 'E_ADMIN_TOKEN_MISSING' | 'E_ADMIN_TOKEN_INVALID' | 'E_ADMIN_TOKEN_REQUIRED' | 'E_CROSS_SITE_REQUEST' | 'E_HOST_NOT_ALLOWED';

export interface AdminRefusal {
  status: 401 | 403;
  code: AdminRefusalCode | ErrorCode;
  message: string;
}

/** The token the admin routes require: given (`--admin-token`), or made by the mock for its `--public-url`. */
export interface AdminToken {
  value: string;
  made: boolean;
}

/** Headers a proxy adds to what it passes on (a tunnel's agent, a reverse proxy): such a request may come from anywhere. */
const forwardingHeaders = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'] as const;

/**
 * Whether a `--public-url` names this machine only (localhost, a name under `.localhost`, a loopback address). Any
 * other is how others reach the mock, so its admin routes then need a token.
 */
export function reachesThisMachineOnly(publicUrl: string): boolean {
  const name = new URL(publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/** A token the mock makes for itself: 32 characters of base64url, 192 random bits. */
export function newAdminToken(): string {
  return randomBytes(24).toString('base64url');
}

export interface AdminGuard {
  /** `remoteAddress`: the peer's address, as the socket gives it. */
  check(headers: IncomingHttpHeaders, remoteAddress: string | undefined): AdminRefusal | undefined;
}

/**
 * `hosts`: the names the mock answers to besides loopback ones, IP addresses and the machine's own name (the
 * `--host` it listens on, the host of `--public-url`).
 */
export function createAdminGuard(options: { adminToken?: AdminToken; hosts: readonly string[] }): AdminGuard {
  const own = ownHosts(options.hosts);
  const token = options.adminToken === undefined ? undefined : digest(options.adminToken.value);
  // Where a person finds the token: they chose it, or the mock printed the one it made.
  const whereItIs = options.adminToken?.made ? ': its --public-url reaches it from beyond this machine, and the token was printed when the mock started' : '';
  return {
    check(headers, remoteAddress) {
      if (headers['webhook-id'] !== undefined) {
        return { status: 403, code: 'E_CROSS_SITE_REQUEST', message: 'Admin routes refuse a webhook delivery (it carries webhook-id): the endpoint\'s URL names an admin route of the mock, which a delivery may not call.' };
      }
      const host = headers.host ?? '';
      if (!own.answers(host)) {
        return { status: 403, code: 'E_HOST_NOT_ALLOWED', message: `The mock does not answer admin requests for the host ${JSON.stringify(host.slice(0, 100))}: use localhost, an IP address, or the host of --public-url.` };
      }
      const origin = headers.origin;
      if (origin !== undefined && origin !== 'null' && !sameHost(origin, host)) {
        return { status: 403, code: 'E_CROSS_SITE_REQUEST', message: 'Admin routes refuse requests sent by a page of another site.' };
      }
      if (origin === 'null') return { status: 403, code: 'E_CROSS_SITE_REQUEST', message: 'Admin routes refuse requests from an opaque origin (a sandboxed page or a local file).' };
      // A browser says where a request comes from even when it sends no Origin (an image, a link followed):
      // another site, or another port of this one, is not the mock's own page.
      const site = headers['sec-fetch-site'];
      if (site === 'cross-site' || site === 'same-site') return { status: 403, code: 'E_CROSS_SITE_REQUEST', message: 'Admin routes refuse requests sent by a page of another site.' };
      if (token === undefined) {
        const forwarded = forwardingHeaders.find((name) => headers[name] !== undefined);
        if (forwarded) return { status: 403, code: 'E_ADMIN_TOKEN_REQUIRED', message: `Admin routes answer a request a proxy passed on (it carries ${forwarded}), which may come from anywhere, only when the mock runs with --admin-token.` };
        if (isThisMachine(remoteAddress)) return undefined;
        return { status: 403, code: 'E_ADMIN_TOKEN_REQUIRED', message: `Admin routes answer other machines (this request came from ${String(remoteAddress).slice(0, 60)}) only when the mock runs with --admin-token.` };
      }
      const given = headers[adminTokenHeader];
      if (typeof given !== 'string' || given === '') return { status: 401, code: 'E_ADMIN_TOKEN_MISSING', message: `This mock requires its admin token in ${adminTokenHeader}${whereItIs}.` };
      if (!timingSafeEqual(digest(given), token)) return { status: 401, code: 'E_ADMIN_TOKEN_INVALID', message: `The ${adminTokenHeader} header does not hold this mock's admin token.` };
      return undefined;
    },
  };
}

/**
 * Whether a peer address is this machine's: a loopback address (127/8, ::1, either mapped into IPv6) or one of its
 * interfaces' (a request to the machine's own LAN address comes from that address). Interfaces are read only for
 * an address that is not loopback, so the usual request costs nothing.
 */
export function isThisMachine(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'))) return true;
  const own = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address.toLowerCase()));
  return own.includes(plain.toLowerCase().replace(/%.*$/, ''));
}

/** Whether an `Origin` names the same host and port the request was sent to. */
function sameHost(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
