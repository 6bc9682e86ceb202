import type { Request, Response } from 'express';
import type { RequestContext } from '../../application/shared/request-context.js';

/** Set by the auth middleware on every /api request that carried a valid key; undefined for one that did not (yet). */
export const contextIfAny = (res: Response): RequestContext | undefined => res.locals.context as RequestContext | undefined;

export const contextOf = (res: Response): RequestContext => {
  const context = contextIfAny(res);
  if (!context) throw new Error('route mounted without the auth middleware');
  return context;
};

export const requestIdOf = (req: Request): string => String(req.id);
