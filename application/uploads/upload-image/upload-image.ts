import { PIXEL_BUDGET } from '../../../domain/templates/template-settings.js';
import { validationError } from '../../../domain/shared/errors.js';
import type { ImageInspector } from '../../ports/asset-inspection.js';
import type { UploadView } from '../../ports/read-models.js';
import { handleAssetCommand, storedResultBytes, storeThenRecord, type AssetDeps } from '../../assets/asset-command.js';
import { uploadStorageKey } from '../../assets/asset-locations.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { toUploadDto, type UploadDto } from '../upload-dto.js';

export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export interface UploadImageDeps extends AssetDeps {
  readonly imageInspector: ImageInspector;
  readonly hrefOf: (uploadId: string) => string;
}

/**
 * Accepts an image whose type its bytes prove (never its name or header), that decodes within the
 * pixels one render may paint; an SVG is stored without scripts, handlers or external references.
 */
export const uploadImage = async (deps: UploadImageDeps, context: RequestContext, content: Buffer): Promise<UploadDto> => {
  requireScope(context, 'templates');
  if (content.length > MAX_IMAGE_BYTES) {
    throw validationError(`The image is larger than ${MAX_IMAGE_BYTES} bytes`, [`file: ${content.length} bytes; at most ${MAX_IMAGE_BYTES} (20 MB)`]);
  }
  const image = await deps.imageInspector.inspect(content, { maxPixels: PIXEL_BUDGET.image });
  const orgId = context.caller.orgId;
  const uploadId = deps.ids.next();
  const storageKey = uploadStorageKey(orgId, uploadId, image.contentType);
  const now = deps.clock.now();
  const { contentType, width, height } = image;
  const upload: UploadView = { id: uploadId, orgId, contentType, width, height, bytes: image.content.length, storageKey, createdAt: now };
  const resultBytes = await storedResultBytes(deps, orgId);
  await storeThenRecord(deps, storageKey, image.content, image.contentType, () =>
    handleAssetCommand(deps, context, {
      type: 'StoreUpload',
      data: { orgId, uploadId, contentType, bytes: upload.bytes, width, height, storageKey, storedResultBytes: resultBytes, now: now.toISOString() },
    }),
  );
  return toUploadDto(upload, deps.hrefOf(uploadId));
};
