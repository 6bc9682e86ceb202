import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { EventStore } from '../../application/ports/event-store.js';
import type { ProjectionProgress } from '../../application/ports/read-models.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { accountsProjection } from './accounts-projection.js';
import { assetsProjection } from './assets-projection.js';
import { documentStore } from './document-store.js';
import type { TableChanges } from './document-projection.js';
import type { Projection } from './projection.js';
import { createProjectionRunner, type ProjectionRunner } from './projection-runner.js';
import { resultsProjection } from './results-projection.js';
import { templatesProjection } from './templates-projection.js';

export const allProjections: readonly Projection[] = [documentStore(templatesProjection), documentStore(accountsProjection), documentStore(resultsProjection), documentStore(assetsProjection)];

/** A bounded wait: a slow projection delays a response, it never hangs it. */
const DEFAULT_WAIT_MS = 5000;

export interface ProjectionSet extends ProjectionProgress {
  readonly runners: readonly ProjectionRunner[];
  start(): Promise<void>;
  stop(): Promise<void>;
  isLive(): boolean;
  /** Calls `listener` with every batch the named projection committed, from now on. */
  onCommitted(projection: string, listener: CommitListener): void;
}

/** A committed batch's events, and the rows this process wrote for it when it knows them. */
export type CommitListener = (events: readonly RecordedEvent[], written: readonly TableChanges[] | null) => void;

export const createProjectionSet = (deps: { orm: MikroORM; eventStore: EventStore; logger: Logger }, projections = allProjections): ProjectionSet => {
  const listeners = new Map<string, CommitListener[]>();
  const runners = projections.map((projection) =>
    createProjectionRunner({
      ...deps,
      projection,
      onCommitted: (events, written) => {
        for (const listener of listeners.get(projection.name) ?? []) listener(events, written);
      },
    }),
  );
  return {
    runners,
    onCommitted(projection, listener) {
      listeners.set(projection, [...(listeners.get(projection) ?? []), listener]);
    },
    start: async () => {
      await Promise.all(runners.map((runner) => runner.start()));
    },
    stop: async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
    },
    isLive: () => runners.every((runner) => runner.isLive()),
    async waitFor(position, timeoutMs = DEFAULT_WAIT_MS) {
      const reached = await Promise.all(runners.map((runner) => runner.waitFor(position, timeoutMs)));
      if (reached.every(Boolean)) return true;
      deps.logger.warn({ position }, 'read models did not reach a write in time; the response may be stale');
      return false;
    },
  };
};
