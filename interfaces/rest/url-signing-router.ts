import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { SignedUrlBody, SigningKeyIdParam } from '../schemas/url-signing-schemas.js';
import { contextOf } from './request-context.js';

/** The organization's URL-signing keys, and image URLs signed by the service (extensions of this service). */
export const urlSigningRouter = ({ urlSigning }: AppServices): Router => {
  const router = Router();

  router.get('/v2/url-signing-keys', async (_req, res) => {
    res.json(await urlSigning.listKeys(contextOf(res)));
  });

  router.post('/v2/url-signing-keys', async (_req, res) => {
    res.json(await urlSigning.createKey(contextOf(res)));
  });

  router.get('/v2/url-signing-keys/:identifier', async (req, res) => {
    const { identifier } = parseInput(SigningKeyIdParam, req.params, 'path');
    res.json(await urlSigning.getKey(contextOf(res), identifier));
  });

  /** POST on a key rotates it: a new secret under the same identifier. */
  router.post('/v2/url-signing-keys/:identifier', async (req, res) => {
    const { identifier } = parseInput(SigningKeyIdParam, req.params, 'path');
    res.json(await urlSigning.rotateKey(contextOf(res), identifier));
  });

  router.delete('/v2/url-signing-keys/:identifier', async (req, res) => {
    const { identifier } = parseInput(SigningKeyIdParam, req.params, 'path');
    await urlSigning.revokeKey(contextOf(res), identifier);
    res.status(200).end();
  });

  router.post('/v2/signed-urls', async (req, res) => {
    res.json(await urlSigning.signUrl(contextOf(res), parseInput(SignedUrlBody, req.body, 'body')));
  });

  return router;
};
