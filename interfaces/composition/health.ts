import type { HealthReport } from '../http/app-services.js';
import type { Foundation } from './foundation.js';

/** The event log and the read models answer, and the projections follow the log. */
export const healthCheck =
  ({ eventStore, orm, projections }: Pick<Foundation, 'eventStore' | 'orm' | 'projections'>) =>
  async (): Promise<HealthReport> => {
    const checks: HealthReport['checks'] = {};
    const probe = async (name: string, check: () => Promise<unknown>) => {
      try {
        await check();
        checks[name] = { ok: true };
      } catch (error) {
        checks[name] = { ok: false, detail: (error as Error).message };
      }
    };
    await probe('eventStore', () => eventStore.readAll({ after: null, limit: 1 }));
    await probe('readModels', () => orm.em.getConnection().execute('select 1'));
    checks.projections = projections.isLive() ? { ok: true } : { ok: false, detail: 'projections are not following the log' };
    return { ok: Object.values(checks).every((check) => check.ok), checks };
  };
