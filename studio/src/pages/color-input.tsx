import { hexColor } from '../component-values';

/**
 * What a colour picker can show of a CSS colour: its opaque part as `#rrggbb`. Hex forms are read
 * here; names and rgb()/hsl() are read by the browser, through a canvas's fill style, which it
 * answers as hex or rgba(). Null for text the browser does not read as a colour.
 */
const pickerValue = (value: string): string | null => {
  const hex = hexColor(value);
  if (hex || value.trim() === '') return hex;
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return null;
  // A colour it cannot read leaves the fill style as it was: two different starting points tell.
  const read = (start: string) => {
    context.fillStyle = start;
    context.fillStyle = value;
    return context.fillStyle;
  };
  const resolved = read('#000000');
  if (resolved !== read('#ffffff')) return null;
  if (resolved.startsWith('#')) return resolved;
  const channels = /^rgba?\((\d+), (\d+), (\d+)/.exec(resolved);
  return channels ? `#${channels.slice(1, 4).map((channel) => Number(channel).toString(16).padStart(2, '0')).join('')}` : null;
};

/**
 * A colour as a picker and as text side by side: the picker for choosing, the text for every form
 * the service takes (names, rgb(), rgba(), transparent). The text field carries `id`, so a label
 * names it.
 */
export const ColorInput = ({
  id,
  label,
  value,
  placeholder,
  invalid = false,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  placeholder?: string;
  invalid?: boolean;
  onChange: (value: string) => void;
}) => (
  <span className="color-input">
    <input type="color" aria-label={`Pick ${label}`} value={pickerValue(value === '' && placeholder ? placeholder : value) ?? '#000000'} onChange={(event) => onChange(event.target.value)} />
    <input id={id} type="text" value={value} placeholder={placeholder} spellCheck={false} onChange={(event) => onChange(event.target.value)} aria-invalid={invalid} />
  </span>
);
