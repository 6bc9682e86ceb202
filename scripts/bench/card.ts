/** The benchmark's template: a 1200x630 social card in the html-editor, with four merge fields. */
export const WIDTH = 1200;
export const HEIGHT = 630;

export const CARD_HTML = `<div class="card">
  <div class="badge">{{category}}</div>
  <h1>{{title}}</h1>
  <p>{{summary}}</p>
  <div class="footer"><span class="author">{{author}}</span><span class="site">render.example</span></div>
</div>`;

export const CARD_CSS = `
body { background: linear-gradient(135deg, #312e81 0%, #7c3aed 55%, #db2777 100%); font-family: "Open Sans", "DejaVu Sans", sans-serif; color: #fff; }
.card { box-sizing: border-box; width: 1200px; height: 630px; padding: 72px 88px; display: flex; flex-direction: column; }
.badge { align-self: flex-start; padding: 8px 20px; border-radius: 999px; background: rgba(255,255,255,.18); font: 600 22px "Roboto", sans-serif; letter-spacing: .08em; text-transform: uppercase; }
h1 { margin: 36px 0 20px; font: 800 68px/1.08 "Lato", "Open Sans", sans-serif; text-shadow: 0 4px 24px rgba(0,0,0,.35); }
p { margin: 0; max-width: 920px; font-size: 30px; line-height: 1.4; opacity: .92; }
.footer { margin-top: auto; display: flex; justify-content: space-between; font-size: 26px; border-top: 2px solid rgba(255,255,255,.3); padding-top: 24px; }
.author { font-weight: 700; }
`;

export const SAMPLE_DATA = {
  category: 'Engineering',
  title: 'Rendering at the speed of a browser',
  summary: 'Templates become images in one request: merge fields filled, charged in credits, listed in results.',
  author: 'The render team',
};

/** Request data of render i: every cache-miss render gets a title of its own. */
export const dataFor = (i: number) => ({ ...SAMPLE_DATA, title: `Render ${i}: at the speed of a browser` });

/** The request the cache-hit runs repeat. */
export const HIT_DATA = { ...SAMPLE_DATA, title: 'Cached card' };
