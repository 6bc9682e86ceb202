import { Fragment, useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { dragged, nudged, type Box, type DragMode } from '../geometry';
import type { Component } from '../types';

interface Drag {
  readonly id: string;
  readonly mode: DragMode;
  readonly start: Box;
  readonly pointerX: number;
  readonly pointerY: number;
  /** Screen pixels per template pixel when the drag began. */
  readonly scale: number;
}

const percent = (part: number, whole: number) => `${(part / whole) * 100}%`;

/**
 * Boxes over the preview image, one per component, placed in percentages of the page so they
 * follow the image at whatever size it is shown. Dragging a box moves its component and dragging
 * its corner resizes it; with the keyboard, arrow keys do the same (Shift: ten pixels).
 */
export const ComponentOverlay = ({
  components,
  page,
  selected,
  onSelect,
  onChange,
}: {
  components: readonly Component[];
  page: { readonly width: number; readonly height: number };
  selected: string | null;
  onSelect: (id: string) => void;
  onChange: (id: string, box: Box) => void;
}) => {
  const layer = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);

  const begin = (event: PointerEvent<HTMLElement>, component: Component, mode: DragMode) => {
    if (component.locked) return;
    event.stopPropagation();
    event.preventDefault();
    onSelect(component.id);
    event.currentTarget.setPointerCapture(event.pointerId);
    const scale = (layer.current?.clientWidth ?? page.width) / page.width;
    drag.current = { id: component.id, mode, start: component, pointerX: event.clientX, pointerY: event.clientY, scale };
  };
  const move = (event: PointerEvent<HTMLElement>) => {
    const current = drag.current;
    if (!current) return;
    onChange(current.id, dragged(current.start, current.mode, event.clientX - current.pointerX, event.clientY - current.pointerY, current.scale));
  };
  const end = () => {
    drag.current = null;
  };
  const key = (event: KeyboardEvent<HTMLElement>, component: Component, mode: DragMode) => {
    const next = component.locked ? null : nudged(component, mode, event.key, event.shiftKey);
    if (!next) return;
    event.preventDefault();
    event.stopPropagation();
    onChange(component.id, next);
  };

  return (
    <div className="overlay" ref={layer}>
      {components.map((component) => (
        <Fragment key={component.id}>
          <div
            className={`box${component.id === selected ? ' selected' : ''}${component.locked ? ' locked' : ''}`}
            style={{ left: percent(component.x, page.width), top: percent(component.y, page.height), width: percent(component.width, page.width), height: percent(component.height, page.height) }}
            role="button"
            tabIndex={0}
            aria-label={`${component.id} (${component.type}): arrow keys move it`}
            aria-pressed={component.id === selected}
            data-component={component.id}
            onPointerDown={(event) => begin(event, component, 'move')}
            onPointerMove={move}
            onPointerUp={end}
            onPointerCancel={end}
            onFocus={() => onSelect(component.id)}
            onKeyDown={(event) => key(event, component, 'move')}
          />
          {/* A sibling of its box, not a child: one control may not hold another. */}
          {component.id === selected && !component.locked && (
            <span
              className="handle"
              style={{ left: percent(component.x + component.width, page.width), top: percent(component.y + component.height, page.height) }}
              role="button"
              tabIndex={0}
              aria-label={`Resize ${component.id}: arrow keys change its size`}
              data-handle={component.id}
              onPointerDown={(event) => begin(event, component, 'resize')}
              onPointerMove={move}
              onPointerUp={end}
              onPointerCancel={end}
              onKeyDown={(event) => key(event, component, 'resize')}
            />
          )}
        </Fragment>
      ))}
    </div>
  );
};
