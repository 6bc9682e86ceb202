import type { EventStore } from '../../application/ports/event-store.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { ledgerOfStream } from '../../domain/ledger/ledger-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';

const PAGE = 1_000;

/** Every charge and refund of an organization, in log order, from its ledger streams (and its account stream, where older logs kept them). */
export const creditEventsOf = async (eventStore: EventStore, orgId: string): Promise<RecordedEvent[]> => {
  const found: RecordedEvent[] = [];
  for (let after: number | null = null; ; ) {
    const page = await eventStore.readAll({ after, limit: PAGE, orgId });
    for (const event of page) {
      const ours = ledgerOfStream(event.streamName)?.orgId === orgId || event.streamName === accountStream(orgId);
      if (ours && (event.type === 'CreditsCharged' || event.type === 'CreditsRefunded')) found.push(event);
    }
    if (page.length < PAGE) return found;
    after = page.at(-1)?.position ?? null;
  }
};

/** The charges and refunds of one request, as event types in log order. */
export const creditMovesOf = async (eventStore: EventStore, orgId: string, requestId: string) =>
  (await creditEventsOf(eventStore, orgId)).filter((event) => (event.data as { requestId?: string }).requestId === requestId);
