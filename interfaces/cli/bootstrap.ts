import type { AccountService } from '../../application/accounts/account-service.js';

export const DEV_ORG_ID = 'dev';

/**
 * BOOTSTRAP_API_KEY makes sure that key works (scripts, compose, tests). Without it a fresh dev key
 * is issued on every start, so a first-time user can call the API at once; keys stay hashed at rest.
 */
export const bootstrapApiKey = async (accounts: AccountService, bootstrapKey: string | undefined): Promise<{ key: string | null; orgId: string }> => {
  if (bootstrapKey) {
    const { orgId } = await accounts.ensureBootstrapKey(bootstrapKey);
    return { key: null, orgId };
  }
  if (!(await accounts.getAccount(DEV_ORG_ID))) await accounts.openOrganization({ name: 'Development', orgId: DEV_ORG_ID });
  const issued = await accounts.issueApiKey(DEV_ORG_ID, { label: 'dev key issued by npm start' });
  return { key: issued.key, orgId: DEV_ORG_ID };
};
