/**
 * What fitting text adds to a render, per fitted element: two canvas templates alike but for their
 * TEXT components' `fit`, rendered in turn through the service at one client, each render a miss;
 * the difference of their p50s over the number of fitted components.
 */

type Call = (method: string, pathname: string, body?: unknown) => Promise<Record<string, unknown>>;

const TEXTS = 10;
const ROUNDS = 15;
const WARM_UP = 3;
const LONG_TEXT = 'A product name three times longer than the sample the designer drew this card with, and then some more words. ';

export interface TextFitCost {
  readonly elements: number;
  readonly fittedP50Ms: number;
  readonly plainP50Ms: number;
  readonly perElementMs: number;
}

const componentsWith = (fit: 'shrink' | 'none') =>
  Array.from({ length: TEXTS }, (_, index) => ({
    id: `text${index + 1}`,
    type: 'TEXT',
    x: 20 + (index % 2) * 590,
    y: 20 + Math.floor(index / 2) * 120,
    width: 570,
    height: 100,
    text: LONG_TEXT,
    fontSize: 40,
    fit,
    minFontSize: 10,
  }));

const p50 = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export const measureTextFitCost = async (call: Call): Promise<TextFitCost> => {
  const templateWith = async (fit: 'shrink' | 'none') => {
    const created = await call('POST', '/api/v2/my-templates', { name: `Fit ${fit}`, width: 1200, height: 630, editor: 'canvas-editor' });
    const id = String(created.identifier);
    await call('PUT', `/api/v2/my-templates/${id}/components`, { components: componentsWith(fit) });
    return id;
  };
  const fitted = await templateWith('shrink');
  const plain = await templateWith('none');
  const timed = async (template: string, round: number) => {
    const started = performance.now();
    // A different text per round: every render is a miss, with the same amount of text.
    await call('POST', '/api/v2/render', { template, data: { 'text1.text': `${round} ${LONG_TEXT}` }, cache: false });
    return performance.now() - started;
  };
  const times = { fitted: [] as number[], plain: [] as number[] };
  for (let round = 0; round < WARM_UP + ROUNDS; round++) {
    // In turn, so that whatever else the machine does weighs on both alike.
    const [withFit, without] = [await timed(fitted, round), await timed(plain, round)];
    if (round < WARM_UP) continue;
    times.fitted.push(withFit);
    times.plain.push(without);
  }
  const [fittedP50Ms, plainP50Ms] = [p50(times.fitted), p50(times.plain)];
  return { elements: TEXTS, fittedP50Ms, plainP50Ms, perElementMs: (fittedP50Ms - plainP50Ms) / TEXTS };
};
