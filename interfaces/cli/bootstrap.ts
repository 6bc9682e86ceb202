import type { AccountService } from '../../application/accounts/account-service.js';

export const DEV_ORG_ID = 'dev';
const DEV_KEY_LABEL = 'dev key issued by npm start';

/**
 * BOOTSTRAP_API_KEY makes sure that key works (scripts, compose, tests). Without it a fresh dev key
 * is issued on every start, so a first-time user can call the API at once, and the dev keys of
 * earlier starts are revoked: only the key printed last works. Keys stay hashed at rest, so an old
 * key cannot be shown again, only replaced.
 */
export const bootstrapApiKey = async (accounts: AccountService, bootstrapKey: string | undefined): Promise<{ key: string | null; orgId: string }> => {
  if (bootstrapKey) {
    const { orgId } = await accounts.ensureBootstrapKey(bootstrapKey);
    return { key: null, orgId };
  }
  if (!(await accounts.getAccount(DEV_ORG_ID))) await accounts.openOrganization({ name: 'Development', orgId: DEV_ORG_ID });
  const earlier = (await accounts.listKeys(DEV_ORG_ID)).filter((key) => key.label === DEV_KEY_LABEL && !key.revoked);
  const issued = await accounts.issueApiKey(DEV_ORG_ID, { label: DEV_KEY_LABEL });
  for (const key of earlier) await accounts.revokeApiKey(DEV_ORG_ID, key.id);
  return { key: issued.key, orgId: DEV_ORG_ID };
};
