import { API_KEY_SCOPES } from '../../domain/accounts/account-events.js';
import type { RequestContext } from '../shared/request-context.js';

/** Work a workflow does for a request is recorded as the system's, correlated with that request. */
export const systemContextFor = (orgId: string, requestId: string): RequestContext => ({
  caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES },
  correlationId: requestId,
});
