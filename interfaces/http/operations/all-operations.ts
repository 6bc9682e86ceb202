import type { AnyOperation } from '../operation.js';
import { createTemplate, createTemplateV1, deleteTemplate, getComponents, getHtmlContent, getTemplate, getTemplateVersion, listTemplates, listTemplateVersions, publishTemplateVersion, replaceComponents, replaceHtmlContent, restoreTemplateVersion, updateTemplate } from './templates.js';
import { getAccountSettings, getUsage, listFonts, updateAccountSettings, uploadFont, deleteFont } from './account.js';
import { getAuditHistory, getBatchHistory, getTemplateAt, getUploadHistory } from './audit.js';
import { cancelBatch, downloadBatchMergedPdf, downloadBatchZip, getBatch, listBatches, submitBatch } from './batches.js';
import { printPdf, takeScreenshot } from './captures.js';
import { listRequestsV1, render, renderImageFromQuery, renderV1 } from './renders.js';
import { deleteResult, getFile, getResult, listResults } from './results.js';
import { createUrlSigningKey, getUrlSigningKey, listUrlSigningKeys, revokeUrlSigningKey, rotateUrlSigningKey, signImageUrl } from './signed-urls.js';
import { deleteUpload, getUploadFile, listUploads, uploadImage } from './uploads.js';

/**
 * Every operation of the API, in the order routes are tried: renders first (every cache hit is
 * one), then the rest as the document lists them.
 */
export const ALL_OPERATIONS: readonly AnyOperation[] = [
  render,
  renderImageFromQuery,
  getFile,
  listTemplates,
  createTemplate,
  createTemplateV1,
  getTemplate,
  updateTemplate,
  deleteTemplate,
  getHtmlContent,
  replaceHtmlContent,
  getComponents,
  replaceComponents,
  listTemplateVersions,
  getTemplateVersion,
  restoreTemplateVersion,
  publishTemplateVersion,
  listResults,
  getResult,
  deleteResult,
  listUrlSigningKeys,
  createUrlSigningKey,
  getUrlSigningKey,
  rotateUrlSigningKey,
  revokeUrlSigningKey,
  signImageUrl,
  getAccountSettings,
  updateAccountSettings,
  takeScreenshot,
  printPdf,
  renderV1,
  listRequestsV1,
  getUsage,
  getAuditHistory,
  getUploadHistory,
  getTemplateAt,
  getBatchHistory,
  listFonts,
  uploadFont,
  deleteFont,
  listBatches,
  submitBatch,
  getBatch,
  cancelBatch,
  downloadBatchZip,
  downloadBatchMergedPdf,
  listUploads,
  uploadImage,
  deleteUpload,
  getUploadFile,
];
