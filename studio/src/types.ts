import type { components } from '../../generated/api-types.js';

/** The public API's answers as the OpenAPI document describes them (generated/api-types.ts, from `npm run openapi`). */
type Schemas = components['schemas'];

export type Template = Schemas['Template'];
export type Editor = Template['editor'];
export type Property = Schemas['Property'];
export type TemplateContent = Schemas['TemplateContent'];
/** A canvas template's components as the service answers them; the editor sends them back changed. */
export type ComponentDocument = Schemas['ComponentDocumentOutput'];
export type Component = ComponentDocument['components'][number];
export type RenderAccepted = Schemas['RenderResponse'];
export type ResultDetail = Schemas['RenderResult'];
export type ResultPage = Schemas['PageRenderResult'];
export type Usage = Schemas['Usage'];
export type Font = Schemas['Font'];
/** An uploaded font: the only kind with an identifier (which deletes it). */
export type CustomFont = Schemas['CustomFont'];
export type Upload = Schemas['Upload'];
export type UploadPage = Schemas['PageUpload'];
export type TemplateVersionPage = Schemas['PageTemplateVersion'];
export type TemplateVersionSummary = Schemas['TemplateVersionSummary'];
export type Batch = Schemas['Batch'];
export type BatchPage = Schemas['PageBatch'];
export type BatchListItem = Schemas['BatchListItem'];
export type SubmittedBatch = Schemas['SubmittedBatch'];
