/*
 * chrome-headless-shell, not full Chromium: the same engine build draws the same pixels (byte-identical
 * PNGs of the benchmark card) for much less Chromium CPU per render and less memory, since it
 * carries none of the browser's UI, profile and Google services. Full Chromium still works
 * (CHROMIUM_PATH=/usr/bin/chromium), with those services pointed nowhere.
 * The binary itself, not Debian's /usr/bin wrapper: that shell script runs it without exec, so the
 * process puppeteer holds would be the script, and killing a wedged browser would kill only the script.
 */
export const DEFAULT_CHROMIUM_PATH = '/usr/lib/chromium/chromium-headless-shell';
