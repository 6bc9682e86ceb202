import type { ReactNode } from 'react';
import type { Template } from '../types';
import type { RenderState } from '../use-debounced-render';
import { StatusLine } from '../status-line';

/** The latest rendered preview, at most the column's width, with what is happening now said beside it. */
export const PreviewImage = ({ state, template, children }: { state: RenderState; template: Template; children?: ReactNode }) => (
  <figure className="preview" aria-busy={state.busy}>
    <div className="stage">
      {state.url ? <img src={state.url} alt={`Preview of ${template.name}`} width={template.width} height={template.height} data-testid="preview" /> : <div className="empty" />}
      {children}
    </div>
    <figcaption>
      <StatusLine error={state.error}>{state.busy ? 'Rendering...' : state.url ? 'Preview up to date.' : ''}</StatusLine>
    </figcaption>
  </figure>
);
