import { pipeline } from 'node:stream/promises';
import { MAX_IMAGE_BYTES } from '../../../application/uploads/upload-image/upload-image.js';
import { ImageUploadForm, ListUploadsQuery, Upload, UploadIdParam, UploadPage } from '../../schemas/result-schemas.js';
import { readMultipartFile } from '../multipart-file.js';
import { operation } from '../operation.js';

/*
 * An uploaded SVG served at its href must not run even if a browser opens it as a page: it was
 * sanitized on the way in, and the answer forbids scripts and every fetch besides.
 */
const FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox",
  'Cache-Control': 'private, no-cache',
};

export const listUploads = operation({
  id: 'listUploads',
  method: 'get',
  path: '/api/v2/uploads',
  tags: ['uploads'],
  summary: "The organization's uploaded images, newest first",
  input: { query: ListUploadsQuery },
  answer: { description: 'One page of uploads', schema: UploadPage },
  call: ({ uploads }, context, { query }) => uploads.list(context, query),
});

export const uploadImage = operation({
  id: 'uploadImage',
  method: 'post',
  path: '/api/v2/uploads',
  tags: ['uploads'],
  summary: 'Upload an image (PNG, JPEG, WebP, GIF or SVG, at most 20 MB; an SVG at most 5 MB) to use in templates',
  description:
    'The type is sniffed from the bytes; the image must decode within the pixels one render may paint (50 million). ' +
    'SVGs are stored without scripts, event handlers and external references. The href works as an image source in the ' +
    "organization's templates in every format (renders read it from storage, never over the network); another organization's renders cannot load it. " +
    'Its bytes count in uploads.used; past uploads.total the upload is a 402.',
  input: { form: ImageUploadForm },
  answer: { description: 'The uploaded image', schema: Upload },
  readBody: async (req) => (await readMultipartFile(req, { fileField: 'file', maxBytes: MAX_IMAGE_BYTES, textFields: [] })).content,
  call: ({ uploads }, context, { body }) => uploads.upload(context, body),
});

export const deleteUpload = operation({
  id: 'deleteUpload',
  method: 'delete',
  path: '/api/v2/uploads/{identifier}',
  tags: ['uploads'],
  summary: 'Delete an uploaded image; its bytes leave uploads.used and new renders no longer show it',
  input: { path: UploadIdParam },
  answer: { description: 'Deleted' },
  call: ({ uploads }, context, { path }) => uploads.delete(context, path.identifier),
});

export const getUploadFile = operation({
  id: 'getUploadFile',
  method: 'get',
  path: '/api/v2/uploads/{identifier}/file',
  tags: ['uploads'],
  summary: "An uploaded image's bytes (the upload's href)",
  input: { path: UploadIdParam },
  answer: { description: 'The image', binary: ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/svg+xml'] },
  call: ({ uploads }, context, { path }) => uploads.readFile(context, path.identifier),
  send: async (res, { file, contentType }, { request }) => {
    if (!('stream' in file)) throw new Error('a whole-file read cannot be unsatisfiable');
    res.set({ ...FILE_HEADERS, 'Content-Type': contentType, 'Content-Length': String(file.size), ETag: file.etag });
    try {
      await pipeline(file.stream, res);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') request.log.warn({ err: error }, 'upload download failed midway');
    }
  },
});
