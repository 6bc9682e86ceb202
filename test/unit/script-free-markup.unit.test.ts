import { describe, expect, it } from 'vitest';
import { isScriptFree } from '../../infrastructure/rendering/script-free-markup.js';
import { CARD_CSS, CARD_HTML } from '../../scripts/bench/card.js';

/*
 * A document judged script-free is drawn in a sandboxed frame where no script runs (template-document.ts):
 * a script judged absent would silently not run. So every way markup can run a script, set the
 * document's own policies or draw differently with scripting off must count; markup that only looks
 * like it may count too (a fresh frame, no more).
 */
describe('isScriptFree', () => {
  it.each([
    ['the benchmark card', `<style>${CARD_CSS}</style>${CARD_HTML}`],
    ['escaped data (mustache escapes quotes as entities)', '<h1>It&#39;s &quot;here&quot; &amp; now</h1>'],
    ['inline SVG shapes and gradients', '<svg viewBox="0 0 10 10"><linearGradient id="g"><stop offset="0"/></linearGradient><rect fill="url(#g)" width="10" height="10"/></svg>'],
    ['images, fonts and links', '<img src="https://example.com/a.png" srcset="a.png 2x"><link rel="stylesheet" href="x.css"><a href="https://example.com">on</a>'],
    ['words that start with "on"', '<p class="online">one only, ongoing</p>'],
  ])('%s: true', (_name, html) => {
    expect(isScriptFree(html)).toBe(true);
  });

  it.each([
    ['a script element', '<p>x</p><script>document.title = 1</script>'],
    ['a script element in capitals', '<SCRIPT src="x.js"></SCRIPT>'],
    ['a script in SVG', '<svg><script href="x.js"/></svg>'],
    ['an event handler', '<img src="x" onerror="alert(1)">'],
    ['an event handler in capitals, spaced', '<body ONLOAD = "go()">'],
    ['an event handler after a slash', '<svg/onload=alert(1)>'],
    ['an event handler straight after a quoted value', '<img src="x"onerror=alert(1)>'],
    ['an event handler on a new line', '<div\nonclick="x()">'],
    ['a refresh', '<meta http-equiv="refresh" content="0;url=https://example.com">'],
    ['a content security policy', "<meta http-equiv=Content-Security-Policy content=\"img-src 'none'\">"],
    ['an iframe with a srcdoc', '<iframe srcdoc="<script>1</script>"></iframe>'],
    ['an iframe with a javascript: URL', '<iframe src="javascript:alert(1)"></iframe>'],
    ['an object', '<object data="x.svg"></object>'],
    ['an embed', '<embed src="x.swf">'],
    ['a frameset', '<frameset><frame src="x"></frameset>'],
    ['noscript, shown when scripting is off', '<noscript><p>Enable JavaScript</p></noscript>'],
    ["a canvas, whose fallback shows when scripting is off", '<canvas width="10" height="10"><p>fallback</p></canvas>'],
    ['a video', '<video src="clip.mp4" muted></video>'],
    ['audio', '<audio src="a.mp3"></audio>'],
    ['a marquee', '<marquee>news</marquee>'],
    ['autofocus', '<input autofocus>'],
    ['a lazy image, loaded at once when scripting is off', '<img src="a.png" loading="lazy">'],
    ['the scripting media feature', '<style>@media (scripting: none) { p { color: red } }</style>'],
  ])('%s: false', (_name, html) => {
    expect(isScriptFree(html)).toBe(false);
  });
});
