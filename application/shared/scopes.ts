import type { ApiKeyScope } from '../../domain/accounts/account-events.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { RequestContext } from './request-context.js';

export const requireScope = (context: RequestContext, scope: ApiKeyScope): void => {
  if (!context.caller.scopes.includes(scope)) {
    throw new DomainError('forbidden', `This API key lacks the ${scope} scope`, [`missing scope: ${scope}`]);
  }
};
