export { renderWorkflow, syncRenderWorkflow } from './render.workflow.js';
export { webhookWorkflow } from './webhook.workflow.js';
export { captureWorkflow, syncCaptureWorkflow } from './capture.workflow.js';
export { videoRenderWorkflow } from './video-render.workflow.js';
export { batchWorkflow } from './batch.workflow.js';
