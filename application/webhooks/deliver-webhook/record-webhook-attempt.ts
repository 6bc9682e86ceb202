import type { WebhookCommand } from '../../../domain/renders/webhook-attempts.js';
import { systemContextFor } from '../../shared/request-context.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';

/** Records one attempt to deliver a request's webhook (failed, delivered) or its abandonment, each once. */
export const recordWebhookAttempt = (deps: CommandDeps, request: { readonly orgId: string; readonly requestId: string }, command: WebhookCommand) =>
  onRenderStream(deps, request.requestId, command, systemContextFor(request.orgId, request.requestId));
