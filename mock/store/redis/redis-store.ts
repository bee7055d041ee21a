/**
 * The Redis backend (`--store redis://HOST:PORT[/DB]`): several mock processes share one Redis and serve the same
 * partners. Every method that reads before it writes is one Lua script, which Redis runs without interleaving
 * anything else, so the rules of store.ts hold across processes. The key layout is described in keys.ts.
 */
import { createProcessRateBuckets } from '../rate-buckets.ts';
import type { Store, StoreOptions } from '../store.ts';
import { redisCompanies, redisDocuments, companyScripts } from './companies.ts';
import { closeRedis, connectRedis, describeRedisUrl } from './connection.ts';
import { checkLayoutVersion } from './layout-version.ts';
import { customerScripts, redisCustomers } from './customers.ts';
import { idempotencyScripts, redisIdempotency } from './idempotency.ts';
import { journalScripts, redisJournal } from './journal.ts';
import { maintenanceScripts, redisMaintenance } from './maintenance.ts';
import { outboxScripts, redisOutbox } from './outbox.ts';
import { registerScripts } from './scripts.ts';
import { redisTimeline, timelineScripts } from './timeline.ts';
import { redisWebhookEndpoints, webhookEndpointScripts } from './webhook-endpoints.ts';

const allScripts = {
  ...customerScripts,
  ...companyScripts,
  ...idempotencyScripts,
  ...timelineScripts,
  ...outboxScripts,
  ...webhookEndpointScripts,
  ...journalScripts,
  ...maintenanceScripts,
};

export async function openRedisStore(url: string, options: StoreOptions): Promise<Store> {
  const description = describeRedisUrl(url);
  const client = await connectRedis(url, description);
  try {
    await checkLayoutVersion(client, description);
  } catch (error) {
    await closeRedis(client);
    throw error;
  }
  const scripts = registerScripts(client, allScripts, description);
  const { secret, reset } = redisMaintenance(scripts);
  return {
    description,
    shared: true,
    rateBuckets: createProcessRateBuckets(),
    customers: redisCustomers(scripts),
    companies: redisCompanies(scripts),
    documents: redisDocuments(scripts),
    idempotency: redisIdempotency(scripts, options),
    timeline: redisTimeline(scripts, options),
    outbox: redisOutbox(scripts, options),
    webhookEndpoints: redisWebhookEndpoints(scripts, options),
    journal: redisJournal(scripts, options),
    secret,
    reset,
    close: () => scripts.shutdown(() => closeRedis(client)),
  };
}
