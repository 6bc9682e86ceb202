import type { Logger } from 'pino';
import type { Config } from '../../infrastructure/config/config.js';
import { createEventStore } from '../../infrastructure/event-store/create-event-store.js';
import { resolveDatabaseUrl } from '../../infrastructure/postgres/embedded-postgres.js';
import { createProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { openReadModelSet } from '../../infrastructure/read-models/read-model-set.js';
import { PostgresRateLimitStore } from '../../infrastructure/rate-limits/postgres-rate-limit-store.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { loadSecretSealer } from '../../infrastructure/security/secrets-encryption-key.js';
import { createFileStorage } from '../../infrastructure/storage/create-file-storage.js';
import { createResultLinks } from '../../infrastructure/storage/signed-links.js';
import { loadSigningSecret } from '../../infrastructure/storage/signing-secret.js';
import { systemClock, uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import type { Lifetime } from '../../infrastructure/system/lifetime.js';
import { orgOfRateLimitKey } from '../http/app-services.js';

/**
 * What the API and the workers both stand on (the database, the event log, the read models and the
 * projections that fill them, stored files and their links, the policy for private addresses), under
 * the names the use cases' dependencies give them, so that each use case is built from it directly.
 */
export const openFoundation = async (config: Config, logger: Logger, lifetime: Lifetime, { runProjections }: { readonly runProjections: boolean }) => {
  const database = await resolveDatabaseUrl({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, logger });
  lifetime.defer(() => database.stop());
  const eventStore = await createEventStore({ eventStoreUrl: config.EVENTSTORE_URL, databaseUrl: database.url, logger });
  lifetime.defer(() => eventStore.close());
  const orm = await openReadModels(database.url);
  lifetime.defer(() => orm.close());
  const projections = createProjectionSet({ orm, eventStore, logger });
  lifetime.defer(() => projections.stop());
  if (runProjections) await projections.start();
  const readModels = openReadModelSet(orm, runProjections ? projections : null);

  /** Requests one key of the organization may make per window, by its plan; 0 for no limit. */
  const planLimit = async (orgId: string) => {
    const plan = (await readModels.accounts.getAccount(orgId))?.planName;
    return (plan === undefined ? undefined : config.RATE_LIMIT_PLANS?.get(plan)) ?? config.RATE_LIMIT_DEFAULT;
  };
  // Request counts of every API process, kept where they all see them.
  const rateLimitStore = new PostgresRateLimitStore(database.url, (key) => planLimit(orgOfRateLimitKey(key)), logger);
  lifetime.defer(() => rateLimitStore.shutdown());
  const publicBaseUrl = config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
  const signingSecret = await loadSigningSecret({ configured: config.URL_SIGNING_SECRET, dataDir: config.DATA_DIR });

  return {
    ...readModels,
    databaseUrl: database.url,
    rateLimitStore,
    planLimit,
    eventStore,
    orm,
    projections,
    /** The read models as far as this process has projected them, for commands that wait to read their writes. */
    progress: projections,
    clock: systemClock,
    ids: uuidV7Ids,
    storage: createFileStorage(config),
    publicBaseUrl,
    links: createResultLinks({ baseUrl: publicBaseUrl, secret: signingSecret }),
    secretSealer: await loadSecretSealer({ configured: config.SECRETS_ENCRYPTION_KEY, dataDir: config.DATA_DIR }),
    /** Which hosts renders, webhooks and batches' URLs may reach. */
    urls: createHostPolicy({ allowedPrivateHosts: config.ALLOWED_PRIVATE_HOSTS }),
  };
};

export type Foundation = Awaited<ReturnType<typeof openFoundation>>;
