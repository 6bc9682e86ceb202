import type { PdfStandard } from '../../../domain/renders/pdf-standards.js';
import type { OutputFormat } from '../../../domain/renders/output-formats.js';
import type { Fps } from '../../../domain/templates/template-settings.js';

export interface RenderInput {
  readonly template: string;
  /** The template version to draw; without it the published version, else the latest. */
  readonly templateVersion?: number;
  readonly data?: Record<string, unknown>;
  readonly fileName?: string;
  readonly webhookUrl?: string;
  readonly version?: string;
  readonly metadata?: Record<string, unknown>;
  readonly batchName?: string;
  readonly cache?: boolean;
  readonly waitTime?: number;
  readonly outputFormat?: OutputFormat;
  readonly duration?: number;
  readonly fps?: Fps;
  readonly expires?: number;
  readonly width?: number;
  readonly height?: number;
  readonly pdfStandard?: PdfStandard;
}

export interface RenderAnswer {
  readonly requestId: string;
  readonly href: string;
  readonly cached?: true;
  /** Only for asynchronous (video) renders: pending, or done when answered from the render cache. */
  readonly status?: 'pending' | 'done';
  /** The stored file, for callers that want the bytes (output=image, GET /img). */
  readonly storageKey?: string;
  readonly contentType?: string;
}
