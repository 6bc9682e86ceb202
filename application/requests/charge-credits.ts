import type { AcceptedRequest } from '../../domain/renders/render.js';
import type { Clock } from '../ports/clock.js';
import { systemContextFor } from '../shared/request-context.js';
import type { AccountCommands } from './account-commands.js';

/** Charges a request's price to its organization, once however often it is retried (the account decider keys charges by request). */
export const chargeCredits = (accounts: AccountCommands, clock: Clock, request: AcceptedRequest) =>
  accounts.handle(
    request.orgId,
    { type: 'ChargeCredits', data: { orgId: request.orgId, requestId: request.requestId, amount: request.credits, now: clock.now().toISOString() } },
    systemContextFor(request.orgId, request.requestId),
  );
