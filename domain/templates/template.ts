import { assertNever } from '../shared/decider.js';
import type { TemplateCreated, TemplateEvent } from './template-events.js';
import type { ComponentDocument } from './components/component-document.js';

export interface HtmlContent {
  readonly html: string;
  readonly css: string;
  readonly sampleData: Record<string, unknown>;
  readonly mergeFields: readonly string[];
}

export type TemplateFields = Omit<TemplateCreated['data'], 'createdAt'> & {
  readonly createdAt: string;
  readonly updatedAt: string;
};

export type Template =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly fields: TemplateFields;
      readonly content: HtmlContent | null;
      /** canvas-editor and canvas-html templates only. */
      readonly components: ComponentDocument | null;
    }
  | { readonly status: 'deleted'; readonly orgId: string };

export const initialTemplate = (): Template => ({ status: 'absent' });

export const evolveTemplate = (state: Template, event: TemplateEvent): Template => {
  switch (event.type) {
    case 'TemplateCreated':
      return {
        status: 'active',
        fields: { ...event.data, updatedAt: event.data.createdAt },
        content: null,
        components: null,
      };
    case 'TemplateUpdated': {
      if (state.status !== 'active') return state;
      const { tags, ...rest } = event.data.changes;
      return {
        ...state,
        fields: {
          ...state.fields,
          ...rest,
          ...(tags ? { tags: [...tags] } : {}),
          updatedAt: event.data.updatedAt,
        },
      };
    }
    case 'TemplateContentReplaced': {
      if (state.status !== 'active') return state;
      const { html, css, sampleData, mergeFields, replacedAt } = event.data;
      return {
        ...state,
        fields: { ...state.fields, updatedAt: replacedAt },
        content: { html, css, sampleData, mergeFields },
      };
    }
    case 'TemplateComponentsReplaced': {
      if (state.status !== 'active') return state;
      return { ...state, fields: { ...state.fields, updatedAt: event.data.replacedAt }, components: event.data.components };
    }
    case 'TemplateDeleted':
      return state.status === 'active' ? { status: 'deleted', orgId: state.fields.orgId } : state;
    default:
      return assertNever(event);
  }
};
