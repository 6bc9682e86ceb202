/*
 * The workflow types as they ran before each patch, bundled in place of workflows/index.ts by
 * scripts/record-workflow-histories.ts to record the "old" histories the replay test replays.
 */
export { renderWorkflow, syncRenderWorkflow } from './pre-patch-render.workflow.js';
export { videoRenderWorkflow } from './pre-patch-video-render.workflow.js';
