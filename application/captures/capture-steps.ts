import { notFound } from '../../domain/shared/errors.js';
import type { StoredFile } from '../../domain/renders/render-events.js';
import type { FileStorage } from '../ports/file-storage.js';
import type { Metrics } from '../ports/metrics.js';
import type { PageCapturer } from '../ports/page-capture.js';
import { loadRender } from '../renders/load-render.js';
import { measuredRender } from '../renders/render-metrics.js';
import { storeFile } from '../renders/render-steps.js';
import type { CommandDeps } from '../shared/command-handler.js';

export interface CaptureStepsDeps extends Pick<CommandDeps, 'eventStore'> {
  readonly storage: FileStorage;
  readonly capturer: PageCapturer;
  readonly metrics: Metrics;
}

export type CaptureSteps = ReturnType<typeof createCaptureSteps>;

/**
 * The one step a capture does not share with a render: loading the page and storing what it
 * shows. Charging, recording and webhooks are the render steps, which take either kind of request.
 */
export const createCaptureSteps = (deps: CaptureStepsDeps) => ({
  async produce(requestId: string): Promise<StoredFile> {
    const state = await loadRender(deps.eventStore, requestId);
    if (state.kind !== 'capture') throw notFound('Capture');
    const { request } = state;
    return measuredRender(deps.metrics, { kind: 'capture', format: request.capture.kind }, async () => {
      return storeFile(deps.storage, request, request.capture.fileName, await deps.capturer.capture(request.capture, request.orgId, { test: request.test === true }));
    });
  },
});
