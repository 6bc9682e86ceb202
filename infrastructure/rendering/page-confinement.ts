import type { Page } from 'puppeteer-core';
import type { HostPolicy } from './network-guard.js';
import { serveOrgAssets, type OrgAssetSource } from './org-assets.js';
import { serveTemplateDocuments } from './template-document.js';

/*
 * Runs in every frame before its own scripts. WebRTC and WebTransport send UDP, which the egress
 * proxy never sees: Chromium's disable_non_proxied_udp policy still let STUN and TURN datagrams
 * reach a private address (test/int/egress-proxy.int.test.ts), so templates get neither.
 */
const NO_ESCAPE_HATCHES = `(() => {
  window.open = () => null;
  window.print = () => undefined;
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate', 'RTCSessionDescription', 'WebTransport']) {
    try { delete window[name]; } catch {}
  }
})();`;

/**
 * Someone else's page must not get out of the page the network guard watches: popups would be
 * pages of their own, service workers fetch beside the page's interception, and a dialog (alert,
 * confirm, print) would stall the page until someone answers it. Once per page, before any render.
 */
export const confinePage = async (page: Page): Promise<void> => {
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  page.on('popup', (popup) => void popup?.close().catch(() => {}));
  await page.setBypassServiceWorker(true);
  await page.evaluateOnNewDocument(NO_ESCAPE_HATCHES);
};

/**
 * Everything a pool page needs once, in order: its documents and its organization's uploaded files
 * are served before the guard refuses `.invalid` and private addresses.
 */
export const prepareRenderPage =
  (hostPolicy: HostPolicy, assets: OrgAssetSource) =>
  async (page: Page, tenant: string): Promise<void> => {
    serveTemplateDocuments(page);
    serveOrgAssets(page, tenant, assets);
    await confinePage(page);
    await hostPolicy.guardPage(page);
  };
