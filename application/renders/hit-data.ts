import type { RenderRequested } from '../../domain/renders/render-events.js';
import { jsonBytes } from '../../domain/shared/json-size.js';
import type { EventStore } from '../ports/event-store.js';
import { loadRender } from './load-render.js';

/**
 * A cache hit costs nothing, so one that copied large data into the immutable log would let a client
 * grow it for free by repeating a request. A hit whose data is larger than this stores a reference to
 * the request that stored the data instead (RenderRequested.dataFrom); smaller data is cheaper to
 * keep than to look up.
 */
export const INLINE_HIT_DATA_BYTES = 1024;

/** The request of a cache hit as it is recorded: data inline when small, else by reference to `dataFrom`. */
export const hitRequest = (requested: RenderRequested['data'], dataFrom: string): RenderRequested['data'] => {
  if (jsonBytes(requested.spec.data) <= INLINE_HIT_DATA_BYTES) return { ...requested, credits: 0 };
  const { data: _data, ...request } = requested.request;
  return { ...requested, credits: 0, request, spec: { ...requested.spec, data: {} }, dataFrom };
};

/** The data a request stored: as its render used it (spec.data) and as its client sent it (request.data). */
export const storedDataOf = async (eventStore: EventStore, requestId: string): Promise<{ readonly used: Record<string, unknown>; readonly sent: unknown }> => {
  const origin = (await loadRender(eventStore, requestId)).request;
  return 'spec' in origin ? { used: origin.spec.data, sent: origin.request.data } : { used: {}, sent: undefined };
};

/** The request exactly as its client sent it, `data` included wherever it is stored. */
export const requestAsSent = async (eventStore: EventStore, request: Record<string, unknown>, dataFrom: string | null): Promise<Record<string, unknown>> =>
  dataFrom === null ? request : { ...request, data: (await storedDataOf(eventStore, dataFrom)).sent };
