import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { FiltersEngine, Request, type RequestType } from '@ghostery/adblocker';
import type { HTTPRequest, Page } from 'puppeteer-core';

/*
 * blockAds for captures: requests to ad and tracker hosts are refused, ad slots and cookie-consent
 * pop-ups are hidden (cosmetic filters, @ghostery/adblocker's engine on the filter list shipped in
 * ./ad-filters), and consent pop-ups that @duckduckgo/autoconsent's rules recognise are answered
 * "reject" (its content script and rules, both from its package). Everything is read from disk once
 * per worker; nothing is fetched at run time, and the page's own requests still leave only through
 * the egress proxy and the network guard (this only refuses more of them).
 */

const require = createRequire(import.meta.url);
/** The package's own folder: its content script and rules are files it ships, not modules it exports. */
const autoconsentFile = (file: string) => join(dirname(dirname(require.resolve('@duckduckgo/autoconsent'))), file);

/** Below the network guard's refusal (which always wins) and above every handler's continue (priority 0). */
const AD_BLOCK_PRIORITY = 1_000;
/** How long a consent pop-up that autoconsent found may take to be answered, and how long to look for one. */
const CONSENT_DETECT_MS = 1_000;
const CONSENT_ANSWER_MS = 3_000;
/** Class names, ids and links sent to the engine to find the generic hiding rules that apply. */
const MAX_DOM_TOKENS = 5_000;

let engine: FiltersEngine | undefined;
const filtersEngine = (): FiltersEngine => {
  engine ??= FiltersEngine.parse(readFileSync(new URL('./ad-filters/filters.txt', import.meta.url), 'utf8'), {
    loadCosmeticFilters: true,
    loadNetworkFilters: true,
    loadGenericCosmeticsFilters: true,
    loadExtendedSelectors: false,
    enableHtmlFiltering: false,
  });
  return engine;
};

let consentAssets: { script: string; rules: unknown } | undefined;
const autoconsentAssets = () => {
  consentAssets ??= {
    script: readFileSync(autoconsentFile('dist/autoconsent.playwright.js'), 'utf8'),
    rules: { autoconsent: [], compact: JSON.parse(readFileSync(autoconsentFile('rules/compact-rules.json'), 'utf8')) as unknown },
  };
  return consentAssets;
};

/** Puppeteer's resource types, as the engine names them. */
const requestType = (request: HTTPRequest, page: Page): RequestType => {
  const type = request.resourceType();
  if (type === 'document') return request.frame() === page.mainFrame() ? 'main_frame' : 'sub_frame';
  return type as RequestType;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface AdBlocking {
  /** After the page loaded: answer a consent pop-up if one was found, and hide what the filters hide. */
  settle(deadline: number): Promise<void>;
  /** Takes every handler, binding and script off the page, which later captures and renders share. */
  detach(): Promise<void>;
}

/** Switches blocking on for one capture, before its navigation. */
export const attachAdBlocking = async (page: Page): Promise<AdBlocking> => {
  const filters = filtersEngine();
  const { script, rules } = autoconsentAssets();
  const onRequest = (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return;
    const type = requestType(request, page);
    // The page itself is never refused here: the capture's navigation checks tell refusals apart by that.
    if (type === 'main_frame') return;
    let match = false;
    try {
      match = filters.match(Request.fromRawDetails({ url: request.url(), sourceUrl: request.frame()?.url() ?? page.url(), type })).match;
    } catch {
      // A URL the engine cannot read is left to the guard.
    }
    if (match) {
      void request.abort('blockedbyclient', AD_BLOCK_PRIORITY).catch(() => {});
    } else {
      void request.continue(request.continueRequestOverrides(), 0).catch(() => {});
    }
  };
  page.on('request', onRequest);

  // autoconsent: its content script talks to a "background" through a binding; this is that background.
  const consent = { initialised: false, detected: false, done: false };
  const answer = (message: unknown) =>
    page.evaluate((m) => (window as unknown as { autoconsentReceiveMessage?: (m: unknown) => unknown }).autoconsentReceiveMessage?.(m), message as never).catch(() => {});
  const onMessage = async (message: { type?: string; id?: string; url?: string }) => {
    switch (message.type) {
      case 'init':
        // Frames other than the page's own are left to the cosmetic filters.
        if (consent.initialised || message.url !== page.url()) return;
        consent.initialised = true;
        await answer({ type: 'initResp', rules, config: { enabled: true, autoAction: 'optOut', detectRetries: 2, enableHeuristicDetection: true, heuristicMode: 'reject', logs: { errors: false } } });
        return;
      case 'eval':
        // Rules that need the page's own code evaluated are not run: no code the service did not write runs outside the page.
        await answer({ type: 'evalResp', id: message.id, result: false });
        return;
      case 'cmpDetected':
      case 'popupFound':
        consent.detected = true;
        return;
      case 'optOutResult':
      case 'autoconsentDone':
        consent.done = true;
        return;
      default:
    }
  };
  // A capture that ended before taking its binding off (a page replaced mid-way) must not stop the next one.
  await page.removeExposedFunction('autoconsentSendMessage').catch(() => {});
  await page.exposeFunction('autoconsentSendMessage', onMessage);
  const { identifier } = await page.evaluateOnNewDocument(script);

  return {
    async settle(deadline) {
      const until = (ms: number) => Math.min(deadline, Date.now() + ms);
      const lookUntil = until(CONSENT_DETECT_MS);
      while (!consent.detected && !consent.done && Date.now() < lookUntil) await sleep(50);
      const answerUntil = until(CONSENT_ANSWER_MS);
      while (consent.detected && !consent.done && Date.now() < answerUntil) await sleep(50);
      const url = new URL(page.url());
      const dom = await page
        .evaluate((max) => {
          const classes = new Set<string>();
          const ids = new Set<string>();
          const hrefs = new Set<string>();
          for (const element of document.querySelectorAll('[class],[id],a[href]')) {
            if (classes.size + ids.size + hrefs.size > max) break;
            for (const name of element.classList) classes.add(name);
            if (element.id) ids.add(element.id);
            if (element instanceof HTMLAnchorElement) hrefs.add(element.href);
          }
          return { classes: [...classes], ids: [...ids], hrefs: [...hrefs] };
        }, MAX_DOM_TOKENS)
        .catch(() => ({ classes: [], ids: [], hrefs: [] }));
      const { styles } = filters.getCosmeticsFilters({
        url: url.href,
        hostname: url.hostname,
        domain: url.hostname,
        ...dom,
        getBaseRules: true,
        getInjectionRules: false,
        getExtendedRules: false,
        getRulesFromDOM: true,
        getRulesFromHostname: true,
      });
      if (styles) await page.addStyleTag({ content: styles }).catch(() => {});
    },
    async detach() {
      page.off('request', onRequest);
      await page.removeScriptToEvaluateOnNewDocument(identifier).catch(() => {});
      await page.removeExposedFunction('autoconsentSendMessage').catch(() => {});
    },
  };
};
