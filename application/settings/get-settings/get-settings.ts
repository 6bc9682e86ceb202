import { notFound } from '../../../domain/shared/errors.js';
import type { AccountReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { toSettingsDto, type SettingsDto } from '../settings-dto.js';

export interface GetSettingsDeps {
  readonly accounts: Pick<AccountReadModel, 'getAccount'>;
}

/** The organization's settings as the service applies them, whoever the caller is. */
export const settingsOf = async (deps: GetSettingsDeps, orgId: string): Promise<SettingsDto> => {
  const account = await deps.accounts.getAccount(orgId);
  if (!account) throw notFound('Organization');
  return toSettingsDto(account);
};

/** Settings are account administration, read or changed by keys with the admin scope. */
export const getSettings = async (deps: GetSettingsDeps, context: RequestContext): Promise<SettingsDto> => {
  requireScope(context, 'admin');
  return settingsOf(deps, context.caller.orgId);
};
