import { assertNever } from '../shared/decider.js';
import type { RenderEvent, RenderRequested, StoredFile } from './render-events.js';

export type RenderStatus = 'pending' | 'done' | 'failed';

export type Render =
  | { readonly status: 'absent' }
  | {
      readonly status: RenderStatus;
      readonly request: RenderRequested['data'];
      readonly file: StoredFile | null;
      readonly deleted: boolean;
    };

export const initialRender = (): Render => ({ status: 'absent' });

export const evolveRender = (state: Render, event: RenderEvent): Render => {
  if (event.type === 'RenderRequested') return { status: 'pending', request: event.data, file: null, deleted: false };
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'RenderCompleted': {
      const { storageKey, fileName, contentType, bytes, width, height } = event.data;
      return { ...state, status: 'done', file: { storageKey, fileName, contentType, bytes, width, height } };
    }
    case 'RenderFailed':
      return { ...state, status: 'failed' };
    case 'ResultDeleted':
      return { ...state, deleted: true };
    default:
      return assertNever(event);
  }
};
