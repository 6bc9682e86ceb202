export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Moving takes the whole box along; resizing moves its bottom-right corner. */
export type DragMode = 'move' | 'resize';

const MIN_SIZE = 1;

/**
 * Where a component ends up after a pointer drag of (dx, dy) screen pixels over a preview shown at
 * `scale` (screen pixels per template pixel): template pixels, whole numbers, at least one pixel wide
 * and high. Positions are not clamped to the page: a component may start off-page, as in the API.
 */
export const dragged = (start: Box, mode: DragMode, dx: number, dy: number, scale: number): Box => {
  const tx = Math.round(dx / scale);
  const ty = Math.round(dy / scale);
  if (mode === 'move') return { ...start, x: start.x + tx, y: start.y + ty };
  return { ...start, width: Math.max(MIN_SIZE, start.width + tx), height: Math.max(MIN_SIZE, start.height + ty) };
};

/** Arrow keys nudge by one template pixel, ten with Shift: dragging without a mouse. */
export const nudged = (start: Box, mode: DragMode, key: string, shift: boolean): Box | null => {
  const step = shift ? 10 : 1;
  const delta: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  const move = delta[key];
  return move ? dragged(start, mode, move[0], move[1], 1) : null;
};
