import { eventGuard, type DomainEvent } from '../shared/events.js';

/**
 * An organization's credits live in one stream per billing period, named by the date the period
 * renews on, so that no command reads more than the period it charges, and nothing else an
 * organization does (keys, settings, fonts, uploads) reads its charges at all.
 */
const LEDGER_STREAM_PREFIX = 'ledger-';
const DATE_LENGTH = 'yyyy-MM-dd'.length;

export const ledgerStream = (orgId: string, endsAt: string) => `${LEDGER_STREAM_PREFIX}${orgId}-${endsAt}`;

/** The organization and period of a ledger stream; null for any other stream. */
export const ledgerOfStream = (streamName: string): { readonly orgId: string; readonly endsAt: string } | null => {
  if (!streamName.startsWith(LEDGER_STREAM_PREFIX) || streamName.length < LEDGER_STREAM_PREFIX.length + DATE_LENGTH + 2) return null;
  return { orgId: streamName.slice(LEDGER_STREAM_PREFIX.length, -DATE_LENGTH - 1), endsAt: streamName.slice(-DATE_LENGTH) };
};

/**
 * The books of a billing period opened, by its first charge or refund: `credits` is what the
 * period allows, `carriedUsed` what the account's own stream had already recorded of this period
 * before ledgers had streams of their own (0 for every period opened since).
 */
export type BillingPeriodOpened = DomainEvent<
  'BillingPeriodOpened',
  { orgId: string; endsAt: string; credits: number; carriedUsed: number; openedAt: string }
>;

export type CreditsCharged = DomainEvent<'CreditsCharged', { requestId: string; amount: number; chargedAt: string }>;

export type CreditsRefunded = DomainEvent<'CreditsRefunded', { requestId: string; amount: number; refundedAt: string }>;

export type LedgerEvent = BillingPeriodOpened | CreditsCharged | CreditsRefunded;

export const isLedgerEvent = eventGuard<LedgerEvent>({ BillingPeriodOpened: true, CreditsCharged: true, CreditsRefunded: true });
