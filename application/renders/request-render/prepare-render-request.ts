import { hash } from 'node:crypto';
import { cacheMaterial } from '../../../domain/renders/cache-key.js';
import { renderCost } from '../../../domain/renders/pricing.js';
import { testExpiry } from '../../../domain/renders/test-mode.js';
import type { RenderRequested } from '../../../domain/renders/render-events.js';
import { validationError } from '../../../domain/shared/errors.js';
import { assertJsonFieldSizes } from '../../../domain/shared/json-size.js';
import type { Clock } from '../../ports/clock.js';
import type { EventStore } from '../../ports/event-store.js';
import type { AccountReadModel, TemplateReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import type { RenderInput } from './render-input.js';
import { buildSpec } from './render-spec.js';
import { templateToRender } from './template-to-render.js';

export interface PrepareRenderDeps {
  readonly eventStore: EventStore;
  readonly clock: Clock;
  readonly templates: Pick<TemplateReadModel, 'get'>;
  readonly accounts: Pick<AccountReadModel, 'getAccount'>;
}

export interface PreparedRender {
  readonly requested: RenderRequested['data'];
  /** What makes two renders the same file, whether or not this one may be answered from the cache. */
  readonly sameRenderKey: string;
}

/**
 * A render request as it would be recorded under `requestId`: the template version it draws, the
 * spec it pins (a 400 for data the template does not take), its price and its cache key. Reads,
 * never writes.
 */
export const prepareRenderRequest = async (deps: PrepareRenderDeps, context: RequestContext, input: RenderInput, requestId: string): Promise<PreparedRender> => {
  assertJsonFieldSizes({ data: input.data, metadata: input.metadata });
  const orgId = context.caller.orgId;
  const latest = await deps.templates.get(orgId, input.template);
  if (!latest) throw validationError(`Template ${input.template} not found`, [`template: no template ${input.template}`]);
  const template = await templateToRender(deps.eventStore, latest, input.templateVersion);
  const test = context.caller.test === true;
  const built = buildSpec(template, input, requestId);
  const spec = test ? { ...built, expires: testExpiry(built.expires) } : built;
  const assetsVersion = (await deps.accounts.getAccount(orgId))?.assetsVersion ?? 0;
  // A test render is watermarked: it is never the same file as a live one.
  const sameRenderKey = hash('sha256', `${cacheMaterial(orgId, spec, input.version ?? null, assetsVersion)}${test ? '\u0000test' : ''}`, 'hex');
  return {
    sameRenderKey,
    requested: {
      requestId,
      orgId,
      request: { ...input },
      spec,
      cacheKey: input.cache !== false ? sameRenderKey : null,
      credits: test ? 0 : renderCost(spec.format, spec.duration, false),
      batchName: input.batchName ?? null,
      metadata: input.metadata ?? null,
      webhookUrl: input.webhookUrl ?? null,
      requestedAt: deps.clock.now().toISOString(),
      dataFrom: null,
      ...(test ? { test: true as const } : {}),
    },
  };
};
