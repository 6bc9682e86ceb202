import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
import { DomainError } from '../../domain/shared/errors.js';

const notRendering = () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process'));

/** For processes without Temporal (the admin CLI): asked to render, they say so instead of hanging. */
export const renderingDisabled: RenderOrchestrator = {
  start: notRendering,
  startVideo: notRendering,
  startCapture: notRendering,
  startWebhook: notRendering,
  startBatch: notRendering,
  startBatchRow: notRendering,
  workflowState: notRendering,
  waitForOutcome: notRendering,
};
