import { pino } from 'pino';
import puppeteer from 'puppeteer-core';
import { createBrowserPool } from './infrastructure/rendering/browser-pool.js';
import { createHostPolicy } from './infrastructure/rendering/network-guard.js';
const html = '<html><body style="margin:0;background:#3366ff;font:48px sans-serif"><h1>Hello {{name}}</h1></body></html>';
const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
const pool = createBrowserPool({ logger: pino({ level: 'warn' }) });
const policy = createHostPolicy({ allowedPrivateHosts: [] });
await pool.warmUp();
const pooled: number[] = [];
for (let i = 0; i < 20; i++) {
  const a = performance.now();
  await pool.withPage(async (page) => { await policy.guardPage(page); await page.setViewport({ width: 1200, height: 630 }); await page.setContent(html); return page.screenshot({ type: 'png', optimizeForSpeed: true }); });
  pooled.push(performance.now() - a);
  await new Promise((r) => setTimeout(r, 100));
}
await pool.close();
const browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, pipe: true, args: ['--no-sandbox'] });
const page = await browser.newPage(); await page.setViewport({ width: 1200, height: 630 });
const raw: number[] = [];
for (let i = 0; i < 20; i++) { const a = performance.now(); await page.setContent(html); await page.screenshot({ type: 'png', optimizeForSpeed: true }); raw.push(performance.now() - a); await new Promise((r) => setTimeout(r, 100)); }
await browser.close();
console.log('pool p50', p50(pooled), 'raw p50', p50(raw));
