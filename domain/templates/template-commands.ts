import type { Editor, Fps, OutputFormat } from './template-settings.js';
import type { TemplateChanges } from './template-events.js';
import type { ComponentDocument } from './components/component-document.js';

export interface CreateTemplate {
  readonly type: 'CreateTemplate';
  readonly data: {
    readonly templateId: string;
    readonly orgId: string;
    readonly name: string;
    readonly editor: Editor;
    readonly width: number;
    readonly height: number;
    readonly outputFormat?: OutputFormat;
    readonly quality?: number;
    readonly scaleFactor?: number;
    readonly recordDuration?: number;
    readonly fps?: Fps;
    readonly tags?: readonly string[];
    readonly createdBy: string;
    readonly sourceTemplateId?: string;
    readonly now: string;
  };
}

export interface UpdateTemplate {
  readonly type: 'UpdateTemplate';
  readonly data: { readonly templateId: string; readonly orgId: string; readonly changes: TemplateChanges; readonly now: string };
}

export interface ReplaceTemplateContent {
  readonly type: 'ReplaceTemplateContent';
  readonly data: {
    readonly templateId: string;
    readonly orgId: string;
    readonly html: string;
    readonly css: string;
    readonly sampleData: Record<string, unknown>;
    readonly mergeFields: readonly string[];
    readonly now: string;
  };
}

export interface ReplaceTemplateComponents {
  readonly type: 'ReplaceTemplateComponents';
  readonly data: { readonly templateId: string; readonly orgId: string; readonly components: ComponentDocument; readonly now: string };
}

export interface DeleteTemplate {
  readonly type: 'DeleteTemplate';
  readonly data: { readonly templateId: string; readonly orgId: string; readonly now: string };
}

export interface PublishTemplateVersion {
  readonly type: 'PublishTemplateVersion';
  /** Without `version`, the latest one is published. */
  readonly data: { readonly templateId: string; readonly orgId: string; readonly version?: number; readonly now: string };
}

export interface RestoreTemplateVersion {
  readonly type: 'RestoreTemplateVersion';
  readonly data: { readonly templateId: string; readonly orgId: string; readonly version: number; readonly now: string };
}

export type TemplateCommand =
  | CreateTemplate
  | UpdateTemplate
  | ReplaceTemplateContent
  | ReplaceTemplateComponents
  | DeleteTemplate
  | PublishTemplateVersion
  | RestoreTemplateVersion;
