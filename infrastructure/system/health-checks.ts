import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventStore } from '../../application/ports/event-store.js';
import type { HealthReport } from '../../application/ports/health-report.js';
import type { ProjectionSet } from '../projections/projection-set.js';

/** What every process stands on: the event log, the read models, and the projections that fill them. */
interface CheckedServices {
  readonly eventStore: EventStore;
  readonly orm: MikroORM;
  readonly projections: ProjectionSet;
}

/** A readiness probe answers fast: a dependency that hangs is reported as not ready, not waited for. */
const READINESS_CHECK_TIMEOUT_MS = 2_000;

type Checks = Record<string, () => Promise<unknown>>;

const runChecks = async (checks: Checks, timeoutMs?: number): Promise<HealthReport['checks']> =>
  Object.fromEntries(
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_, reject) => {
          if (timeoutMs !== undefined) timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          await Promise.race([check(), deadline]);
          return [name, { ok: true }] as const;
        } catch (error) {
          return [name, { ok: false, detail: (error as Error).message }] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    ),
  );

const foundationChecks = ({ eventStore, orm, projections }: CheckedServices): Checks => ({
  eventStore: () => eventStore.readAll({ after: null, limit: 1 }),
  readModels: () => orm.em.getConnection().execute('select 1'),
  projections: async () => {
    if (!projections.isLive()) throw new Error('projections are not following the log');
  },
});

const reportOf = (checks: HealthReport['checks']): HealthReport => ({ ok: Object.values(checks).every((check) => check.ok), checks });

/** The event log and the read models answer, and the projections follow the log. */
export const healthCheck = (foundation: CheckedServices) => async (): Promise<HealthReport> =>
  reportOf(await runChecks(foundationChecks(foundation)));

/**
 * Ready to serve: the health checks, plus Temporal when this process starts or runs workflows, each
 * bounded in time. Projections count only where this process runs them.
 */
export const readinessCheck =
  (
    foundation: CheckedServices,
    options: { readonly runProjections: boolean; readonly temporal: ((deadlineMs: number) => Promise<unknown>) | null },
  ) =>
  async (): Promise<HealthReport> => {
    const { projections, ...always } = foundationChecks(foundation);
    const { temporal } = options;
    const checks: Checks = { ...always, ...(options.runProjections && projections ? { projections } : {}), ...(temporal ? { temporal: () => temporal(READINESS_CHECK_TIMEOUT_MS) } : {}) };
    return reportOf(await runChecks(checks, READINESS_CHECK_TIMEOUT_MS));
  };
