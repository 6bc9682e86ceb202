import { useEffect, useState } from 'react';

/** Pages live in the URL's fragment (`#/templates/<id>`): the service serves one page, and a reload or a link keeps the place. */
export type Route =
  | { readonly page: 'templates' }
  | { readonly page: 'template'; readonly id: string }
  | { readonly page: 'assets' }
  | { readonly page: 'results' }
  /** The batches, with the one whose progress is open. */
  | { readonly page: 'batches'; readonly batch?: string }
  | { readonly page: 'usage' };

export const routeOf = (hash: string): Route => {
  const [page, id] = hash.replace(/^#\/?/, '').split('/');
  if (page === 'templates' && id) return { page: 'template', id: decodeURIComponent(id) };
  if (page === 'batches') return id ? { page, batch: decodeURIComponent(id) } : { page };
  if (page === 'assets' || page === 'results' || page === 'usage') return { page };
  return { page: 'templates' };
};

export const hrefOf = (route: Route): string => {
  if (route.page === 'template') return `#/templates/${encodeURIComponent(route.id)}`;
  if (route.page === 'batches' && route.batch) return `#/batches/${encodeURIComponent(route.batch)}`;
  return `#/${route.page}`;
};

export const navigate = (route: Route) => {
  window.location.hash = hrefOf(route);
};

export const useHashRoute = (): Route => {
  const [route, setRoute] = useState(() => routeOf(window.location.hash));
  useEffect(() => {
    const follow = () => setRoute(routeOf(window.location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return route;
};
