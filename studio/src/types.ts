import type { components } from '../../generated/api-types.js';

/** What the studio reads of the public API's answers (see API-SPEC.md); the service may send more. */

export type Editor = 'html-editor' | 'canvas-editor' | 'canvas-html';

export interface Property {
  readonly key: string;
  readonly type: string;
  readonly defaultValue: string;
  readonly componentId?: string;
  readonly componentType?: string;
  readonly property?: string;
  readonly locked?: boolean;
}

export interface Template {
  readonly identifier: string;
  readonly name: string;
  readonly editor: Editor;
  readonly width: number;
  readonly height: number;
  readonly outputFormat: string;
  readonly recordDuration?: number;
  readonly fps?: number;
  readonly tags: readonly string[];
  readonly properties?: readonly Property[];
}

export interface TemplateContent {
  readonly html: string;
  readonly css?: string;
  readonly sampleData?: Record<string, unknown>;
}

export interface Component {
  readonly id: string;
  readonly type: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly locked?: boolean;
  readonly animation?: unknown;
  readonly [property: string]: unknown;
}

export interface ComponentDocument {
  readonly background?: string;
  readonly components: readonly Component[];
}

export interface RenderAccepted {
  readonly requestId: string;
  readonly href: string;
  readonly status?: 'pending' | 'done' | 'failed';
}

export interface ResultDetail {
  readonly identifier: string;
  readonly href: string;
  readonly status: 'pending' | 'done' | 'failed';
  readonly format: string;
  readonly credits: number;
  readonly templateName: string;
  readonly createdAt: string;
  readonly failureReason?: string;
  readonly progress?: { readonly framesDone: number; readonly framesTotal: number };
}

export interface ResultPage {
  readonly content: readonly { readonly identifier: string; readonly href: string; readonly templateName: string; readonly createdAt: string }[];
  readonly totalPages: number;
  readonly number: number;
  readonly totalElements: number;
}

export interface Usage {
  readonly credits: { readonly used: number; readonly total: number; readonly nextRenewalAt: string; readonly renewalAmount: number };
  readonly uploads: { readonly used: number; readonly total: number };
  readonly plan: { readonly name: string; readonly status: string; readonly nextBillingAt: string };
}

/** Fonts and uploads as the OpenAPI document describes them (generated/api-types.ts, from `npm run openapi`). */
export type Font = components['schemas']['Font'];
/** An uploaded font: the only kind with an identifier (which deletes it). */
export type CustomFont = components['schemas']['CustomFont'];
export type Upload = components['schemas']['Upload'];
export type UploadPage = components['schemas']['PageUpload'];
