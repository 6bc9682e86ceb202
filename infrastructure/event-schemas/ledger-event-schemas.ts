import { z } from 'zod';
import type { LedgerEvent } from '../../domain/ledger/ledger-events.js';
import { id, isoDate, isoTime } from './common-schemas.js';
import { eventSchema, type EventSchemas } from './versioned-event-schema.js';

export const credits = z.number().int().nonnegative();

export const ledgerEventSchemas: EventSchemas<LedgerEvent> = {
  BillingPeriodOpened: eventSchema(z.object({ orgId: id, endsAt: isoDate, credits, carriedUsed: credits, openedAt: isoTime })),
  CreditsCharged: eventSchema(z.object({ requestId: id, amount: credits, chargedAt: isoTime })),
  CreditsRefunded: eventSchema(z.object({ requestId: id, amount: credits, refundedAt: isoTime })),
};
