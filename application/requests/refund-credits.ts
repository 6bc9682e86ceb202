import type { Clock } from '../ports/clock.js';
import { systemContextFor } from '../shared/request-context.js';
import type { AccountCommands } from './account-commands.js';

/** Gives back what a request was charged, if anything, and never twice. */
export const refundCredits = (accounts: AccountCommands, clock: Clock, request: { readonly orgId: string; readonly requestId: string }) =>
  accounts.handle(
    request.orgId,
    { type: 'RefundCredits', data: { orgId: request.orgId, requestId: request.requestId, now: clock.now().toISOString() } },
    systemContextFor(request.orgId, request.requestId),
  );
