import { canonicalJson } from '../shared/canonical-json.js';
import type { RenderSpec } from './render-events.js';

/**
 * What makes two renders produce the same file: the template version rendered and everything of
 * the request that changes pixels, plus the client's `version`, plus the organization's uploaded
 * fonts and images as they stand (`assetsVersion` moves with each upload and deletion: a template may
 * name a font or an image that came or went since). The file name and link expiry do not change
 * pixels, so they do not split the cache.
 */
export const cacheMaterial = (orgId: string, spec: RenderSpec, version: string | null, assetsVersion = 0): string =>
  canonicalJson({
    orgId,
    templateId: spec.templateId,
    // The stream revision of the version rendered, one per version (publishing makes none): keying on it
    // keys on the version, and keys made before versions existed stay what they were.
    templateRevision: spec.templateRevision,
    format: spec.format,
    width: spec.width,
    height: spec.height,
    crop: spec.crop,
    quality: spec.quality,
    scaleFactor: spec.scaleFactor,
    data: spec.data,
    waitTime: spec.waitTime,
    duration: spec.duration,
    fps: spec.fps,
    // Absent for every request without it, so their keys stay what they were.
    pdfStandard: spec.pdfStandard,
    // Absent until the organization first uploads a font or an image, so older keys stay what they were.
    assetsVersion: assetsVersion > 0 ? assetsVersion : undefined,
    version,
  });
