import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import type { ApiCall } from './http-call.js';

/** What a spec drives: the service's HTTP edge over some event store, whose read models it can wait for. */
export interface ApiSpecTarget {
  readonly eventStore: EventStore;
  /** Resolves once the read models have applied the log up to `position`. */
  waitFor(position: number): Promise<unknown>;
  readonly call: ApiCall;
  /** Opens another organization and returns one of its keys. */
  newOrganizationKey(): Promise<string>;
}

/**
 * Given/When/Then over the service's HTTP edge (emmett's ApiSpecification): given events already in
 * some streams, when one HTTP request is made, then the answer and the events it appended, per
 * stream, are what the spec says; nothing else is appended.
 */
export interface GivenStream {
  readonly stream: string;
  readonly orgId: string;
  readonly events: readonly DomainEvent[];
}

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly key?: string;
}

export interface ApiExpectation {
  readonly status: number;
  /** Matched with toMatchObject. */
  readonly body?: object;
  /** The events appended by the request, by stream, matched with toMatchObject; none when left out. */
  readonly appended?: Readonly<Record<string, readonly DomainEvent[] | readonly { type: string; data?: object }[]>>;
}

const envelopesOf = (orgId: string, events: readonly DomainEvent[]) =>
  events.map((event) => ({
    type: event.type,
    data: event.data,
    metadata: {
      eventId: randomUUID(),
      schemaVersion: 1,
      occurredAt: new Date().toISOString(),
      orgId,
      actor: 'given',
      correlationId: 'given',
      causationId: 'given',
    },
  }));

const appendedSince = async (target: ApiSpecTarget, position: number | null): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for (let after = position; ; ) {
    const page = await target.eventStore.readAll({ after, limit: 500 });
    events.push(...page);
    if (page.length < 500) return events;
    after = page.at(-1)?.position ?? after;
  }
};

export const apiSpec = (target: ApiSpecTarget) => ({
  given: (...streams: GivenStream[]) => ({
    when: (request: ApiRequest) => ({
      async then(expected: ApiExpectation): Promise<void> {
        for (const { stream, orgId, events } of streams) {
          const { position } = await target.eventStore.append(stream, envelopesOf(orgId, events), 'any');
          await target.waitFor(position);
        }
        const before = await target.eventStore.headPosition();
        const response = await target.call(request.method, request.path, { body: request.body, ...(request.key === undefined ? {} : { key: request.key }) });
        expect(response.status, JSON.stringify(response.body)).toBe(expected.status);
        if (expected.body !== undefined) expect(response.body).toMatchObject(expected.body);
        const byStream: Record<string, { type: string; data: object }[]> = {};
        for (const event of await appendedSince(target, before)) (byStream[event.streamName] ??= []).push({ type: event.type, data: event.data });
        expect(byStream).toMatchObject(expected.appended ?? {});
        expect(Object.keys(byStream).sort()).toEqual(Object.keys(expected.appended ?? {}).sort());
      },
    }),
  }),
});
