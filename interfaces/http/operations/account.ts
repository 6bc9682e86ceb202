import { z } from 'zod';
import { MAX_FONT_BYTES } from '../../../application/fonts/upload-font/upload-font.js';
import { CustomFont, Font, FontIdParam, FontUploadForm, Usage } from '../../schemas/result-schemas.js';
import { PatchSettingsBody, Settings } from '../../schemas/url-signing-schemas.js';
import { readMultipartFile } from '../multipart-file.js';
import { operation } from '../operation.js';

export const getUsage = operation({
  id: 'getUsage',
  method: 'get',
  path: '/api/v1/usage',
  tags: ['account'],
  summary: 'Credits, upload storage and plan of the organization',
  input: {},
  answer: { description: 'The usage summary', schema: Usage },
  call: ({ usage }, context) => usage.get(context),
});

export const getAccountSettings = operation({
  id: 'getAccountSettings',
  method: 'get',
  path: '/api/v2/account/settings',
  tags: ['account'],
  summary: "The organization's settings (an extension of this service)",
  input: {},
  answer: { description: 'The settings', schema: Settings },
  call: ({ settings }, context) => settings.get(context),
});

export const updateAccountSettings = operation({
  id: 'updateAccountSettings',
  method: 'patch',
  path: '/api/v2/account/settings',
  tags: ['account'],
  summary: "Change the organization's settings; only the fields given change (an extension of this service)",
  input: { body: PatchSettingsBody },
  answer: { description: 'The settings after the change', schema: Settings },
  call: ({ settings }, context, { body }) => settings.change(context, body),
});

export const listFonts = operation({
  id: 'listFonts',
  method: 'get',
  path: '/api/v1/fonts',
  tags: ['account'],
  summary: "Fonts available to renders: the machine's families, then the organization's uploaded fonts",
  input: {},
  answer: { description: 'Every font', schema: z.array(z.union([CustomFont, Font])) },
  call: ({ fonts }, context) => fonts.list(context),
});

export const uploadFont = operation({
  id: 'uploadFont',
  method: 'post',
  path: '/api/v1/fonts',
  tags: ['uploads'],
  summary: 'Upload a font (TTF, OTF, WOFF or WOFF2, at most 10 MB); templates of the organization use it by its family',
  description:
    'The font is parsed whole before anything is stored: a file that is not a font, or a truncated or malformed one, is a 400 and stores nothing. ' +
    "Its bytes count in uploads.used; past uploads.total the upload is a 402. The family must be letters, digits, spaces and _ . , ' & + ( ) - only.",
  input: { form: FontUploadForm },
  answer: { description: 'The uploaded font', schema: CustomFont },
  readBody: async (req) => {
    const { content, fields } = await readMultipartFile(req, { fileField: 'file', maxBytes: MAX_FONT_BYTES, textFields: ['family'] });
    return { content, ...(fields.family === undefined ? {} : { family: fields.family }) };
  },
  call: ({ fonts }, context, { body }) => fonts.upload(context, body),
});

export const deleteFont = operation({
  id: 'deleteFont',
  method: 'delete',
  path: '/api/v1/fonts/{identifier}',
  tags: ['uploads'],
  summary: 'Delete an uploaded font; its bytes leave uploads.used and new renders no longer find it',
  input: { path: FontIdParam },
  answer: { description: 'Deleted' },
  call: ({ fonts }, context, { path }) => fonts.delete(context, path.identifier),
});
