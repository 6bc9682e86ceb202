import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { processTree } from '../../infrastructure/rendering/process-priority.js';
import { BrowserCrashedError, PoolUnavailableError, RenderDeadlineError } from '../../infrastructure/rendering/pool-errors.js';

const logger = pino({ level: 'silent' });

const deferred = () => {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

const until = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const pidOf = (page: Page) => page.browser().process()?.pid;

describe('browser pool on real Chromium', () => {
  let pool: BrowserPool;
  let server: Server;
  let origin: string;
  const hits: string[] = [];

  beforeAll(async () => {
    const pixel = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer();
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      if (request.url === '/redirect') {
        response.writeHead(302, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/redirected.png` });
        response.end();
        return;
      }
      if (request.url?.endsWith('.png')) {
        response.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=3600' });
        response.end(pixel);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>isolation</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 2, maxQueue: 2, renderQueueTimeoutMs: 5_000, logger });
    await pool.warmUp();
  });

  // Contexts of earlier renders close in the background and hold their slot until then.
  beforeEach(() => until(() => pool.stats().inFlight === 0));

  afterAll(async () => {
    await pool?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('renders HTML to a screenshot with the page background', async () => {
    const png = await pool.withPage(async (page) => {
      await page.setViewport({ width: 320, height: 200 });
      await page.setContent('<html><body style="margin:0;background:rgb(12,200,99)"></body></html>');
      return Buffer.from(await page.screenshot({ type: 'png' }));
    }, { tenant: 'org-a', deadlineMs: 10_000 });
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect(info).toMatchObject({ width: 320, height: 200 });
    const center = (100 * info.width + 160) * info.channels;
    expect([...data.subarray(center, center + 3)]).toEqual([12, 200, 99]);
  });

  it('keeps organizations apart: nothing one leaves (cookies, storage, globals, cache) reaches another', async () => {
    // Strings, because this project's type-check has no DOM library.
    const readState = (page: Page) =>
      page.evaluate(`({ cookie: document.cookie, stored: localStorage.getItem('secret'), global: window.leftBehind ?? null, session: sessionStorage.getItem('s') })`);
    const leave = async (page: Page) => {
      await page.goto(`${origin}/isolation`);
      await page.evaluate(`document.cookie = 'session=abc; max-age=3600'; localStorage.setItem('secret', '42'); sessionStorage.setItem('s', '1'); window.leftBehind = 'x'`);
      await page.evaluate(`fetch('/cached.png').then((r) => r.arrayBuffer())`);
      return readState(page);
    };
    const first = await pool.withPage(leave, { tenant: 'org-a', deadlineMs: 10_000 });
    expect(first).toEqual({ cookie: 'session=abc', stored: '42', global: 'x', session: '1' });
    const cachedHits = () => hits.filter((hit) => hit === '/cached.png').length;
    expect(cachedHits()).toBe(1);

    const probe = async (page: Page) => {
      await page.goto(`${origin}/isolation`);
      await page.evaluate(`fetch('/cached.png').then((r) => r.arrayBuffer())`);
      return readState(page);
    };
    const other = await pool.withPage(probe, { tenant: 'org-b', deadlineMs: 10_000 });
    expect(other).toEqual({ cookie: '', stored: null, global: null, session: null });
    // Organization B's fetch reached the server: A's HTTP cache is not B's.
    expect(cachedHits()).toBe(2);

    // The same organization's next render reuses its warm page and context: its own cookies and cache are still there.
    const again = await pool.withPage(probe, { tenant: 'org-a', deadlineMs: 10_000 });
    expect(again).toMatchObject({ cookie: 'session=abc', stored: '42', global: null });
    expect(cachedHits()).toBe(2);
  });

  it('reuses a warm page for the same organization and never hands it to another', async () => {
    const pageOf = (tenant: string) => pool.withPage(async (page) => page, { tenant, deadlineMs: 5_000 });
    const a1 = await pageOf('org-warm-a');
    await until(() => pool.stats().inFlight === 0);
    const a2 = await pageOf('org-warm-a');
    await until(() => pool.stats().inFlight === 0);
    const b = await pageOf('org-warm-b');
    expect(a2).toBe(a1);
    expect(b).not.toBe(a1);
    expect(b.browserContext()).not.toBe(a1.browserContext());
  });

  it('runs at most browsers * pagesPerBrowser renders at once and queues the rest', async () => {
    let running = 0;
    let peak = 0;
    // The first renders hold their pages until the rest have queued: no timing decides the overlap.
    const gate = deferred();
    const renders = [0, 1, 2, 3].map((n) =>
      pool.withPage(
        async (page) => {
          running++;
          peak = Math.max(peak, running);
          await page.setContent(`<p>${n}</p>`);
          await gate.promise;
          running--;
          return n;
        },
        { tenant: `org-${n}`, deadlineMs: 20_000 },
      ),
    );
    await until(() => running === 2 && pool.stats().queued === 2);
    gate.resolve();
    expect(await Promise.all(renders)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
  });

  it('refuses a render at once with unavailable and a Retry-After hint when the queue is full', async () => {
    const gate = deferred();
    const held = [0, 1, 2, 3].map((n) => pool.withPage(() => gate.promise, { tenant: `org-held-${n}`, deadlineMs: 10_000 }));
    await until(() => pool.stats().queued === 2);
    const refused = await pool.withPage(async () => 'ran', { tenant: 'org-late', deadlineMs: 10_000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PoolUnavailableError);
    expect((refused as DomainError).code).toBe('unavailable');
    expect((refused as PoolUnavailableError).retryAfterSeconds).toBe(pool.retryAfterSeconds());
    expect(pool.retryAfterSeconds()).toBeGreaterThanOrEqual(1);
    gate.resolve();
    await Promise.all(held);
  });

  it('refuses a queued render that waits longer than the queue timeout', async () => {
    const gate = deferred();
    const held = [0, 1].map((n) => pool.withPage(() => gate.promise, { tenant: `org-gate-${n}`, deadlineMs: 10_000 }));
    const waited = await pool.withPage(async () => 'ran', { tenant: 'org-waiting', deadlineMs: 10_000, queueTimeoutMs: 100 }).catch((error: unknown) => error);
    expect(waited).toBeInstanceOf(PoolUnavailableError);
    expect((waited as Error).message).toMatch(/within 100 ms/);
    gate.resolve();
    await Promise.all(held);
  });

  it('ends a render stuck in an endless script at its deadline and frees its slot within seconds', async () => {
    const started = Date.now();
    const late = await pool
      .withPage(
        async (page) => {
          await page.goto(`${origin}/isolation`);
          void page.evaluate('setTimeout(() => { for (;;) {} }, 0)').catch(() => {});
          await new Promise((resolve) => setTimeout(resolve, 100));
          // Hangs: the renderer's main thread never comes back.
          return page.screenshot({ type: 'jpeg' });
        },
        { tenant: 'org-hostile', deadlineMs: 500 },
      )
      .catch((error: unknown) => error);
    expect(late).toBeInstanceOf(RenderDeadlineError);
    expect((late as DomainError).code).toBe('validation');
    expect((late as Error).message).toMatch(/within 500 ms/);
    await until(() => pool.stats().inFlight === 0, 8_000);
    expect(Date.now() - started).toBeLessThan(8_000);
    const next = await pool.withPage(async (page) => (await page.setContent('<p>ok</p>'), page.$eval('p', (p) => p.textContent)), {
      tenant: 'org-hostile',
      deadlineMs: 5_000,
    });
    expect(next).toBe('ok');
    expect(pool.stats().crashes).toBe(0);
  });

  it('fails a render whose page runs out of memory as the template\'s fault, and keeps the browser', async () => {
    const crashed = await pool
      .withPage(
        async (page) => {
          await page.goto(`${origin}/isolation`);
          await page.evaluate('const hog = []; for (;;) hog.push(new Array(1e6).fill(1.5));');
        },
        { tenant: 'org-hog', deadlineMs: 60_000 },
      )
      .catch((error: unknown) => error);
    expect((crashed as DomainError).code).toBe('validation');
    expect((crashed as Error).message).toMatch(/crashed|memory|Target closed/);
    await until(() => pool.stats().inFlight === 0);
    expect(pool.stats().crashes).toBe(0);
  }, 90_000);

  it('fails a render whose browser is killed, and serves the next render from a fresh browser', async () => {
    let killed: number | undefined;
    const crashed = await pool
      .withPage(
        async (page) => {
          killed = pidOf(page);
          setTimeout(() => process.kill(killed as number, 'SIGKILL'), 50);
          return page.evaluate(() => new Promise(() => {}));
        },
        { tenant: 'org-killed', deadlineMs: 10_000 },
      )
      .catch((error: unknown) => error);
    expect(crashed).toBeInstanceOf(BrowserCrashedError);
    expect((crashed as Error).message).toMatch(/crashed during the render/);

    const { pid, text } = await pool.withPage(
      async (page) => {
        await page.setContent('<p>alive</p>');
        return { pid: pidOf(page), text: await page.$eval('p', (p) => p.textContent) };
      },
      { tenant: 'org-killed', deadlineMs: 10_000 },
    );
    expect(text).toBe('alive');
    expect(pid).not.toBe(killed);
    expect(pool.stats().crashes).toBe(1);
  });

  it('blocks subresources and redirects to private addresses on a guarded page', async () => {
    const policy = createHostPolicy({ allowedPrivateHosts: [] });
    hits.length = 0;
    const failed = await pool.withPage(
      async (page) => {
        await policy.guardPage(page);
        const errors: string[] = [];
        page.on('requestfailed', (request) => errors.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
        await page.setContent(`<img src="${origin}/pixel.png"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`, { waitUntil: 'load' });
        return errors;
      },
      // Guards stay with their page: a tenant of its own gets a page no other test guarded.
      { tenant: 'org-guard-strict', deadlineMs: 10_000 },
    );
    expect(hits).toEqual([]);
    expect(failed).toEqual([expect.stringMatching(new RegExp(`^${origin}/pixel.png net::ERR_BLOCKED_BY_CLIENT`))]);

    const allowLoopbackIp = createHostPolicy({ allowedPrivateHosts: ['127.0.0.1'] });
    const redirected = await pool.withPage(
      async (page) => {
        await allowLoopbackIp.guardPage(page);
        const errors: string[] = [];
        page.on('requestfailed', (request) => errors.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
        await page.setContent(`<img src="${origin}/pixel.png"><img src="${origin}/redirect">`, { waitUntil: 'load' });
        return errors;
      },
      { tenant: 'org-guard-loopback', deadlineMs: 10_000 },
    );
    expect(hits.sort()).toEqual(['/pixel.png', '/redirect']);
    expect(redirected).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.2:\d+\/redirected\.png net::ERR_BLOCKED_BY_CLIENT/)]);
  });
});

describe('browser pool lifecycle', () => {
  let pool: BrowserPool;
  const prepared = new WeakSet<Page>();

  beforeAll(async () => {
    pool = createBrowserPool({
      browsers: 1,
      pagesPerBrowser: 1,
      restartAfterRenders: 2,
      preparePage: async (page) => {
        prepared.add(page);
      },
      logger,
    });
    await pool.warmUp();
  });

  afterAll(async () => {
    await pool?.close();
  });

  it('hands out only pages that went through preparePage', async () => {
    expect(await pool.withPage(async (page) => prepared.has(page), { tenant: 'org-a', deadlineMs: 5_000 })).toBe(true);
  });

  it('replaces a browser after its render quota, starting the new one before the old one stops', async () => {
    const render = () => pool.withPage(async (page) => pidOf(page), { tenant: 'org-a', deadlineMs: 5_000 });
    let first = await render();
    while (pool.stats().restarts === 0) first = await render();
    await until(() => pool.stats().launching === 0 && pool.stats().restarts === 1);
    expect(await render()).not.toBe(first);
    await until(() => {
      try {
        process.kill(first as number, 0);
        return false;
      } catch {
        return true;
      }
    });
    expect(pool.stats().browsers).toBe(1);
  });

  it('reports a Chromium that cannot start as unavailable instead of queueing forever', async () => {
    const broken = createBrowserPool({ executablePath: '/nonexistent/chromium', logger });
    try {
      await expect(broken.warmUp()).rejects.toThrow(/could not start Chromium/);
      const refused = await broken.withPage(async () => 'ran', { tenant: 'org-a', deadlineMs: 5_000 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PoolUnavailableError);
      expect((refused as Error).message).toMatch(/could not start Chromium/);
    } finally {
      await broken.close();
    }
  });

  it('starts no browser before the first render, closes them when idle, and starts them again for the next', async () => {
    const lazy = createBrowserPool({ logger, idleCloseMs: 300 });
    try {
      expect(lazy.stats().browsers).toBe(0);
      const first = await lazy.withPage(async (page) => pidOf(page), { tenant: 'org-a', deadlineMs: 10_000 });
      expect(lazy.stats().browsers).toBe(1);
      await until(() => {
        try {
          process.kill(first as number, 0);
          return false;
        } catch {
          return true;
        }
      });
      expect(lazy.stats().browsers).toBe(0);
      const second = await lazy.withPage(async (page) => pidOf(page), { tenant: 'org-a', deadlineMs: 10_000 });
      expect(second).not.toBe(first);
      expect(lazy.stats().browsers).toBe(1);
    } finally {
      await lazy.close();
    }
  });

  it('refuses work once closed', async () => {
    const closing = createBrowserPool({ logger });
    await closing.close();
    await expect(closing.withPage(async () => 'ran', { tenant: 'org-a', deadlineMs: 5_000 })).rejects.toBeInstanceOf(PoolUnavailableError);
  });
});

describe('background renders in a browser of their own', () => {
  /** The scheduling policy of every thread of every process under a browser (field 41 of /proc/<pid>/task/<tid>/stat; 5 is SCHED_IDLE). */
  const policiesUnder = async (root: number) => {
    const policies: { pid: number; thread: string; policy: number }[] = [];
    for (const pid of await processTree(root)) {
      for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
        const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
        if (!stat) continue;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        policies.push({ pid, thread: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), policy: Number(fields[41 - 3]) });
      }
    }
    return policies;
  };
  const SCHED_OTHER = 0;
  const SCHED_IDLE = 5;

  it('runs them, and every process and thread their browser starts, in the idle class; renders clients wait for stay in the other browser', async () => {
    const pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 2, idleBackground: true, logger });
    try {
      const shoot = (page: Page) => page.setContent('<p style="font-size:40px">row</p>').then(() => page.screenshot());
      const client = await pool.withPage(async (page) => ({ pid: pidOf(page), shot: await shoot(page) }), { tenant: 'org-a', deadlineMs: 10_000 });
      const background = await pool.withPage(async (page) => ({ pid: pidOf(page), shot: await shoot(page) }), { tenant: 'org-a', deadlineMs: 10_000, background: true });
      expect(background.pid).toBeDefined();
      expect(background.pid).not.toBe(client.pid);
      expect((await sharp(background.shot).stats()).isOpaque).toBe(true);
      // The browser, its zygotes, GPU, network and renderer processes, the renderer forked after the
      // browser moved; Chromium moves some threads back itself, and the pool moves them again.
      let notIdle: { thread: string; policy: number }[] = [];
      for (const deadline = Date.now() + 8_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
        const idle = await policiesUnder(background.pid!);
        expect(new Set(idle.map(({ pid }) => pid)).size).toBeGreaterThan(3);
        notIdle = idle.filter(({ policy }) => policy !== SCHED_IDLE);
        if (notIdle.length === 0) break;
      }
      expect(notIdle).toEqual([]);
      expect((await policiesUnder(client.pid!)).filter(({ policy }) => policy !== SCHED_OTHER)).toEqual([]);
    } finally {
      await pool.close();
    }
  });
});
