/**
 * Result links name the service by its configured public address, which may not be the origin
 * the studio was opened from (127.0.0.1 against localhost, a proxy's name): the studio reaches
 * the same service, so it follows the link's path on its own origin, which its CSP allows.
 */
export const sameOriginLink = (href: string, origin: string): string => {
  const url = new URL(href, origin);
  return `${url.pathname}${url.search}`;
};
