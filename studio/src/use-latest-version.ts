import { useRef } from 'react';
import type { Template } from './types';

/**
 * The newest version of the template the page has seen. Previews of the editors name it: a render
 * without a version draws the published one, not the edit just saved. Versions only grow (a restore
 * is a new one too), so an older answer arriving late never takes it back.
 */
export const useLatestVersion = (template: Template) => {
  const latest = useRef(template.version);
  latest.current = Math.max(latest.current, template.version);
  return {
    get: () => latest.current,
    saw: (fresh: Template) => {
      latest.current = Math.max(latest.current, fresh.version);
    },
  };
};
