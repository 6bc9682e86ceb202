import { notFound } from '../../../domain/shared/errors.js';
import type { AccountReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { toSettingsDto, type SettingsDto } from '../settings-dto.js';

export interface GetSettingsDeps {
  readonly accounts: Pick<AccountReadModel, 'getAccount'>;
}

/** Any valid key may read its own organization's settings, as it may its usage. */
export const getSettings = async (deps: GetSettingsDeps, context: RequestContext): Promise<SettingsDto> => {
  const account = await deps.accounts.getAccount(context.caller.orgId);
  if (!account) throw notFound('Organization');
  return toSettingsDto(account);
};
