/**
 * What keeps a web page of another site from driving a developer's local mock: the admin routes can arm faults,
 * switch response checks off, reset and seed the store, and read every partner's journal, and a browser lets any
 * page send requests to localhost. So an admin request is refused when
 * - its `Origin` is not the mock's own (a page of another site; a browser always sends `Origin` on such requests),
 * - its `Host` is not a name the mock answers to (DNS rebinding: a site whose name resolves to 127.0.0.1 would
 *   otherwise be "same origin" with the mock), or
 * - the mock runs with `--admin-token` and the request does not carry it (for a mock shared on a network).
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../../generated/openapi.js';

export const adminTokenHeader = 'x-mock-admin-token';

export type AdminRefusalCode = 'E_ADMIN_TOKEN_MISSING' | 'E_ADMIN_TOKEN_INVALID' | 'E_CROSS_SITE_REQUEST' | 'E_HOST_NOT_ALLOWED';

export interface AdminRefusal {
  status: 401 | 403;
  code: AdminRefusalCode | ErrorCode;
  message: string;
}

export interface AdminGuard {
  check(headers: IncomingHttpHeaders): AdminRefusal | undefined;
}

/**
 * `hosts`: the names the mock answers to besides loopback ones, IP addresses and the machine's own name (the
 * `--host` it listens on, the host of `--public-url`).
 */
export function createAdminGuard(options: { adminToken?: string; hosts: readonly string[] }): AdminGuard {
  const allowed = new Set(['localhost', hostname().toLowerCase(), ...options.hosts.map((host) => host.toLowerCase())]);
  const token = options.adminToken === undefined ? undefined : digest(options.adminToken);
  const hostAllowed = (host: string) => {
    const name = hostName(host);
    return name !== undefined && (allowed.has(name) || name.endsWith('.localhost') || isIP(name.replace(/^\[|\]$/g, '')) !== 0);
  };
  return {
    check(headers) {
      const host = headers.host ?? '';
      if (!hostAllowed(host)) {
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
      if (token === undefined) return undefined;
      const given = headers[adminTokenHeader];
      if (typeof given !== 'string' || given === '') return { status: 401, code: 'E_ADMIN_TOKEN_MISSING', message: `This mock requires its admin token in ${adminTokenHeader}.` };
      if (!timingSafeEqual(digest(given), token)) return { status: 401, code: 'E_ADMIN_TOKEN_INVALID', message: `The ${adminTokenHeader} header does not hold this mock's admin token.` };
      return undefined;
    },
  };
}

/** The host name of a `Host` header (`localhost:4010`, `[::1]:4010`), lower-cased; undefined when it is not one. */
function hostName(host: string): string | undefined {
  if (host === '') return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
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
