/**
 * The channels a request can take by its path, over one set of services: the admin API (`/_mock/…`) and the API
 * (everything else), and in front of them, when the transport serves them, the documents beside the API (`/docs`,
 * `/openapi.json`: files, which only Node's server reads). What the server (server.ts) and the in-process mock
 * (in-process.ts) both serve: the same pipelines, whichever transport carries their requests.
 */
import type { Logger } from 'pino';
import type { ContractDocument } from '../../contract-model/document.ts';
import type { FetchLike } from '../../client/retrying-fetch.ts';
import { createAdminGuard } from '../admin/admin-guard.ts';
import { createAdminChannel, isAdminPath } from '../admin/admin-api.ts';
import type { MockConfig } from '../config/config.ts';
import type { Channel } from '../pipeline/send-answer.ts';
import { applySeed, type SeedReport } from '../seed/seed.ts';
import { createApiChannel } from './api-channel.ts';
import type { Services } from './services.ts';

export interface Channels {
  channelOf(pathname: string): Channel;
  /** Applies a seed document (`--seed FILE`, `POST /_mock/seed`) through the API, all or nothing. */
  seed(document: unknown, defaultApiKey?: string): Promise<SeedReport>;
}

/** The documents served beside the API, and which paths they are. */
export type DocumentsChannel = Channel & { serves(pathname: string): boolean };

export async function assembleChannels(options: {
  config: MockConfig;
  logger: Logger;
  services: Services;
  /** The URL of the links an answer makes, for the Host a request came with (http/own-hosts.ts). */
  links: (host: string | undefined) => string;
  /** The names the admin routes answer to besides this machine's (admin/admin-guard.ts). */
  hosts: readonly string[];
  /** Where the API answers, for the seed's calls. */
  selfUrl: () => string;
  /** How the seed calls the API there: `fetch` by default, in process the mock's own handler. */
  seedFetch?: FetchLike;
  documents?: DocumentsChannel;
  adminContract?: ContractDocument;
}): Promise<Channels> {
  const { config, logger, services, documents } = options;
  const seed = (document: unknown, defaultApiKey?: string) =>
    applySeed(document, {
      baseUrl: options.selfUrl(),
      sandbox: config.environment === 'sandbox',
      validatorOf: services.requestValidatorOf,
      ...(options.seedFetch ? { fetch: options.seedFetch } : {}),
      ...(defaultApiKey === undefined ? {} : { defaultApiKey }),
    });
  const admin = await createAdminChannel({
    guard: createAdminGuard({ adminToken: services.adminToken, hosts: options.hosts }),
    keys: services.keys,
    bodyBudget: services.bodyBudget,
    rate: { perSecond: config.rateLimitPerSecond, environment: config.environment },
    logger,
    services: { ...services.admin, selfUrl: options.selfUrl, seed },
    linkBase: options.links,
    ...(options.adminContract ? { adminContract: options.adminContract } : {}),
  });
  const api = createApiChannel(config, logger, services, options.links);
  const channelOf = (pathname: string): Channel => (documents?.serves(pathname) ? documents : isAdminPath(pathname) ? admin : api);
  return { channelOf, seed };
}
