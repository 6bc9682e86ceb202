export { renderWorkflow } from './render.workflow.js';
