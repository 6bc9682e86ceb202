import { DomainError } from '../../domain/shared/errors.js';
import type { RequestContext } from '../shared/request-context.js';
import { checkRender, type CheckRenderInput } from './check-render/check-render.js';
import type { RenderAnswer, RenderInput } from './request-render/render-input.js';
import type { CacheHits } from './request-render/answer-from-cache.js';
import { createRequestRender, type RequestRenderDeps } from './request-render/request-render.js';

export type RenderService = ReturnType<typeof createRenderService>;

/** Renders as the edges call them: request one, check one without rendering it, and read the file of a finished one. */
export const createRenderService = (deps: RequestRenderDeps) => {
  const requestRender = createRequestRender(deps);
  return {
    /** The bytes of a finished render, for answers that carry the file itself. */
    async fileOf(answer: RenderAnswer): Promise<{ content: Buffer; contentType: string }> {
      const content = answer.storageKey ? await deps.storage.get(answer.storageKey) : null;
      if (!content || !answer.contentType) throw new DomainError('failed', 'The rendered file is not available', [`requestId ${answer.requestId}`]);
      return { content, contentType: answer.contentType };
    },

    render: (context: RequestContext, input: RenderInput, hits?: CacheHits): Promise<RenderAnswer> => requestRender(context, input, hits),

    /** The render's data checked as the render would check it; nothing rendered, recorded or charged. */
    check: (context: RequestContext, input: CheckRenderInput) => checkRender(deps, context, input),
  };
};
