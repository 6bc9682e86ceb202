import type { Client } from '@temporalio/client';

/*
 * Reading a render's or a capture's Temporal workflow history (workflowId = requestId): its events'
 * types and times, and the local activities its markers record.
 */

/** Wall-clock ms of a Temporal history timestamp, sub-millisecond like the rest of the timings. */
export const historyMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  time ? Number(String(time.seconds ?? 0)) * 1000 + (time.nanos ?? 0) / 1e6 : Number.NaN;

/** The events of a render's or a capture's workflow history so far. */
export const workflowEvents = async (client: Client, workflowId: string) => (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];

export interface LocalActivityMarker {
  readonly type: string;
  readonly completedAt: number;
}

/**
 * A local activity's marker holds, in its `data` detail, the JSON core wrote of it: the activity's
 * type and when it completed (on the worker, which shares this clock). Its original_schedule_time is
 * not when the workflow asked for it (it can follow the completion), so steps run from completion to completion.
 */
export const localActivityOf = (marker: { markerName?: string | null; details?: Record<string, { payloads?: { data?: Uint8Array | null }[] | null }> | null } | null | undefined): LocalActivityMarker | undefined => {
  const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : undefined;
  if (!data) return undefined;
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string; complete_time: { seconds: number; nanos: number } };
  return { type: parsed.activity_type, completedAt: historyMs(parsed.complete_time) };
};

/** A history event's type from the one attributes field it carries (workflowTaskStartedEventAttributes -> WorkflowTaskStarted). */
export const eventTypeOf = (event: object) => {
  for (const [key, value] of Object.entries(event)) {
    if (value && key.endsWith('EventAttributes')) return `${key.charAt(0).toUpperCase()}${key.slice(1, -'EventAttributes'.length)}`;
  }
  return 'Unknown';
};

export interface TimedEvent {
  readonly type: string;
  /** Wall-clock ms, on the clock of the bench's own timings. */
  readonly at: number;
}

export const timedEvents = (events: readonly { eventTime?: Parameters<typeof historyMs>[0] }[]): TimedEvent[] =>
  events.map((event) => ({ type: eventTypeOf(event), at: historyMs(event.eventTime) }));
