import type { RecordedEvent } from '../../domain/shared/events.js';
import type { EventStore } from '../ports/event-store.js';

export interface LogScan {
  /** Exclusive lower bound; null starts at the beginning of the log. */
  readonly after: number | null;
  /** Inclusive upper bound: events appended after a replay started are not part of it. */
  readonly upTo: number;
  /** Events as stored rather than upcast (for hash checks). */
  readonly asStored?: boolean;
  /** Only this organization's events (see ReadAllOptions.orgId). */
  readonly orgId?: string;
  /** Called after each page with the position reached. */
  readonly onPage?: (position: number) => void;
}

/** Events read per round trip: large pages keep a scan of millions of events fast. */
const PAGE_SIZE = 2_000;

/** The global log between two positions, page by page, so a scan of any length holds one page at a time. */
export async function* scanLog(eventStore: EventStore, { after, upTo, asStored = false, orgId, onPage }: LogScan): AsyncGenerator<RecordedEvent> {
  let cursor = after;
  while (cursor === null || cursor < upTo) {
    const page = await eventStore.readAll({ after: cursor, limit: PAGE_SIZE, asStored, orgId });
    for (const event of page) {
      if (event.position > upTo) return;
      yield event;
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE_SIZE) return;
    cursor = last.position;
    onPage?.(cursor);
  }
}
