import type { ByteRangeRequest } from '../ports/file-storage.js';
import type { RequestContext } from '../shared/request-context.js';
import { deleteUpload, type DeleteUploadDeps } from './delete-upload/delete-upload.js';
import { listUploads, type ListUploadsDeps } from './list-uploads/list-uploads.js';
import { readUploadFile, type ReadUploadFileDeps } from './read-upload-file/read-upload-file.js';
import { uploadImage, type UploadImageDeps } from './upload-image/upload-image.js';

export type UploadServiceDeps = UploadImageDeps &
  DeleteUploadDeps &
  ListUploadsDeps &
  ReadUploadFileDeps & { readonly assets: DeleteUploadDeps['assets'] & ListUploadsDeps['assets'] };

export type UploadService = ReturnType<typeof createUploadService>;

/** The image upload use cases bound to their dependencies, as the edges call them. */
export const createUploadService = (deps: UploadServiceDeps) => ({
  upload: (context: RequestContext, content: Buffer) => uploadImage(deps, context, content),
  list: (context: RequestContext, paging: { page: number; size: number }) => listUploads(deps, context, paging),
  delete: (context: RequestContext, uploadId: string) => deleteUpload(deps, context, uploadId),
  readFile: (context: RequestContext, uploadId: string, range?: ByteRangeRequest) => readUploadFile(deps, context, uploadId, range),
});
