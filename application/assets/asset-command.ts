import { notFound } from '../../domain/shared/errors.js';
import type { AssetCommand } from '../../domain/accounts/asset-commands.js';
import type { FileStorage } from '../ports/file-storage.js';
import type { AccountReadModel, ProjectionProgress } from '../ports/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onAccountStream } from '../shared/stream-commands.js';
import type { RequestContext } from '../shared/request-context.js';
import { readYourWrite } from '../shared/read-your-writes.js';

export interface AssetDeps extends CommandDeps {
  readonly accounts: AccountReadModel;
  readonly storage: FileStorage;
  readonly progress: ProjectionProgress;
}

/**
 * An upload or deletion on the caller's account stream, recorded as the caller's and awaited until
 * the read models have it: a font uploaded is a font the next render finds.
 */
export const handleAssetCommand = (deps: AssetDeps, context: RequestContext, command: AssetCommand) =>
  readYourWrite(deps.progress, onAccountStream(deps, context.caller.orgId, command, context));

/** Bytes of the organization's rendered files: they share the upload storage with its fonts and images. */
export const storedResultBytes = async (deps: Pick<AssetDeps, 'accounts'>, orgId: string): Promise<number> => {
  const account = await deps.accounts.getAccount(orgId);
  if (!account) throw notFound('Organization');
  return account.uploadsUsed - account.assetsBytes;
};

/**
 * Stores the file, then records it; a refusal (the quota, a conflict) takes the file away again, so
 * nothing is stored that the log does not count. A crash in between leaves an orphan file, never a
 * counted upload without its file.
 */
export const storeThenRecord = async <T>(deps: AssetDeps, key: string, content: Buffer, contentType: string, record: () => Promise<T>): Promise<T> => {
  await deps.storage.put(key, content, contentType);
  try {
    return await record();
  } catch (error) {
    await deps.storage.delete(key).catch(() => {});
    throw error;
  }
};
