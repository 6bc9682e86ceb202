import type { UrlSigningCommand } from '../../domain/accounts/url-signing-commands.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import type { ProjectionProgress, UrlSigningKeyReadModel } from '../ports/read-models.js';
import type { UrlSigningSecretGenerator } from '../ports/url-signing-secrets.js';
import type { CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';
import { onAccountStream } from '../shared/stream-commands.js';
import { readYourWrite } from '../shared/read-your-writes.js';

export interface SigningKeyDeps extends CommandDeps {
  readonly signingKeys: UrlSigningKeyReadModel;
  readonly progress: ProjectionProgress;
  readonly generator: UrlSigningSecretGenerator;
  /** Secrets enter the account stream sealed, so a copy of the event log alone does not reveal them. */
  readonly secretSealer: SecretSealer;
}

/** Too short a secret makes forging a signature feasible; secrets come from a generator, so this guards a bug. */
const MIN_SECRET_LENGTH = 32;

/** A new secret: the plain one to show once, the sealed one for the command. */
export const freshSecret = (deps: Pick<SigningKeyDeps, 'generator' | 'secretSealer'>): { plain: string; sealed: string } => {
  const plain = deps.generator.generate();
  if (plain.length < MIN_SECRET_LENGTH) throw new Error(`a URL-signing secret needs at least ${MIN_SECRET_LENGTH} characters`);
  return { plain, sealed: deps.secretSealer.seal(plain) };
};

/**
 * A key command on the caller's account stream, awaited until the read models have it: a key
 * created is a key whose URLs render at once, a key revoked one whose URLs no longer do.
 */
export const handleSigningKeyCommand = (deps: SigningKeyDeps, context: RequestContext, command: UrlSigningCommand) =>
  readYourWrite(deps.progress, onAccountStream(deps, context.caller.orgId, command, context));
