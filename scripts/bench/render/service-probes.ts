import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type { RequestHandler } from 'express';
import type { startBenchService } from '../../bench-service.js';

export interface StoreCall {
  readonly op: 'append' | 'read';
  readonly stream: string;
  /** Wall-clock ms (epoch), as the load thread's samples and the workflow histories are. */
  readonly start: number;
  readonly end: number;
}

/** What the bench sees inside the service it runs in its own process, without a hook in the product code. */
export interface ServiceProbes {
  /** The event store calls made while recordStoreCalls was on. */
  readonly storeCalls: readonly StoreCall[];
  recordStoreCalls: boolean;
  /** Database round trips so far: all of them, and those made on behalf of an HTTP request. */
  readonly roundTrips: { readonly request: number; readonly all: number };
  /** While set, each call of the render use case adds its duration here. */
  serviceTimes: number[] | null;
}

const wallNow = () => performance.timeOrigin + performance.now();

const inRequest = new AsyncLocalStorage<true>();

/** Express middleware under which every query counts as the request's (ServiceProbes' `roundTrips.request`). */
export const countRequestRoundTrips: RequestHandler = (_req, _res, next) => inRequest.run(true, next);

export const probeService = ({ eventStore, services }: Awaited<ReturnType<typeof startBenchService>>['runtime']): ServiceProbes => {
  const storeCalls: StoreCall[] = [];
  const roundTrips = { request: 0, all: 0 };
  const probes: ServiceProbes = { storeCalls, recordStoreCalls: false, roundTrips, serviceTimes: null };

  /*
   * API and worker share this event store object in this process; timing its calls shows what the
   * appends and reads of one render cost.
   */
  const { append, readStream } = eventStore;
  eventStore.append = async (stream, events, expected) => {
    const start = wallNow();
    try {
      return await append(stream, events, expected);
    } finally {
      if (probes.recordStoreCalls) storeCalls.push({ op: 'append', stream, start, end: wallNow() });
    }
  };
  eventStore.readStream = async (stream, options) => {
    const start = wallNow();
    try {
      return await readStream(stream, options);
    } finally {
      if (probes.recordStoreCalls) storeCalls.push({ op: 'read', stream, start, end: wallNow() });
    }
  };

  /*
   * Database round trips: every query of either pg copy (the service's and MikroORM's) is counted,
   * and apart those made on behalf of an HTTP request (its context flows through every await), so a
   * hit's own round trips show beside the projections' work it causes later.
   */
  const pgCopies = new Set([createRequire(import.meta.url)('pg'), createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg')] as { Client: { prototype: { query: (...args: unknown[]) => unknown } } }[]);
  for (const { Client } of pgCopies) {
    const query = Client.prototype.query;
    Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
      roundTrips.all++;
      if (inRequest.getStore()) roundTrips.request++;
      return query.apply(this, args);
    };
  }

  // The render use case itself, apart from HTTP, auth and logging around it.
  const { render } = services.renders;
  services.renders.render = async (context, input) => {
    const start = performance.now();
    try {
      return await render(context, input);
    } finally {
      probes.serviceTimes?.push(performance.now() - start);
    }
  };
  return probes;
};
