import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import type { Render } from '../../domain/renders/render.js';
import { notFound } from '../../domain/shared/errors.js';
import type { EventStore } from '../ports/event-store.js';
import type { KnownStream } from '../shared/command-handler.js';
import { aggregateStream } from '../shared/stream-reads.js';

export type AcceptedRender = Exclude<Render, { status: 'absent' }>;

/** The state of an accepted render or capture, and its stream's revision; not_found when none was accepted. */
export const loadRenderStream = async (eventStore: EventStore, requestId: string): Promise<KnownStream<AcceptedRender>> => {
  const { state, events } = await aggregateStream(eventStore, renderStream(requestId), renderDecider);
  const last = events.at(-1);
  if (state.status === 'absent' || !last) throw notFound('Render');
  return { state, revision: last.revision };
};

/** The state of an accepted render or capture, from its stream; not_found when none was accepted. */
export const loadRender = async (eventStore: EventStore, requestId: string): Promise<AcceptedRender> => (await loadRenderStream(eventStore, requestId)).state;
