import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { TextFits } from '../../domain/renders/text-fit.js';
import type { WebhookDeliveryView } from '../../application/ports/read-models.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import type { TemplateProperty } from '../../domain/templates/components/template-properties.js';

/** One row per template; soft-deleted templates keep their row with `deleted` set. */
export const TemplateRow = defineEntity({
  name: 'TemplateRow',
  tableName: 'templates',
  properties: {
    id: p.string().primary(),
    orgId: p.string().index(),
    name: p.string(),
    editor: p.string(),
    width: p.integer(),
    height: p.integer(),
    outputFormat: p.string(),
    quality: p.integer(),
    scaleFactor: p.double(),
    recordDuration: p.integer().nullable(),
    fps: p.integer().nullable(),
    tags: p.array().default([]),
    createdBy: p.string(),
    sourceTemplateId: p.string().nullable(),
    html: p.text().nullable(),
    css: p.text().nullable(),
    sampleData: p.json<Record<string, unknown>>().nullable(),
    mergeFields: p.array().default([]),
    /** canvas-editor and canvas-html templates: the component document and the properties derived from it. */
    components: p.json<ComponentDocument>().nullable(),
    properties: p.json<TemplateProperty[]>().nullable(),
    preview: p.string().nullable(),
    deleted: p.boolean().default(false),
    /**
     * Stream revision of the latest version (the change the row shows): renders of the latest pin it,
     * and the render cache keys on it. Publishing is no version and leaves it.
     */
    revision: p.integer(),
    /** Number of the latest version: 1 + the changes since creation. */
    version: p.integer().default(1),
    /** The version renders without a templateVersion use; null: the latest. */
    publishedVersion: p.integer().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type TemplateRow = InferEntity<typeof TemplateRow>;

export const ApiKeyRow = defineEntity({
  name: 'ApiKeyRow',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    orgId: p.string().index(),
    hash: p.string().unique(),
    prefix: p.string(),
    label: p.string(),
    scopes: p.array(),
    /** A test key: free, watermarked, short-lived renders. */
    test: p.boolean().default(false),
    revoked: p.boolean().default(false),
    createdAt: p.datetime(),
  },
});
export type ApiKeyRow = InferEntity<typeof ApiKeyRow>;

export const AccountRow = defineEntity({
  name: 'AccountRow',
  tableName: 'accounts',
  properties: {
    orgId: p.string().primary(),
    name: p.string(),
    planName: p.string(),
    planStatus: p.string(),
    creditsTotal: p.integer(),
    creditsUsed: p.integer().default(0),
    renewalAmount: p.integer(),
    nextRenewalAt: p.string(),
    /** Bytes of stored result files and uploaded fonts and images together. */
    uploadsUsed: p.bigint('number').default(0),
    /** The part of uploadsUsed that uploaded fonts and images take. */
    assetsBytes: p.bigint('number').default(0),
    /** Counts uploads and deletions of fonts and images: renders of the organization may change with each. */
    assetsVersion: p.integer().default(0),
    uploadsTotal: p.bigint('number'),
    /** GET /img takes the API key from its query string (the spec's form) unless the organization turned it off. */
    apiKeyInQuery: p.boolean().default(true),
    createdAt: p.datetime(),
  },
});
export type AccountRow = InferEntity<typeof AccountRow>;

/** One row per render request; a deleted result keeps its row with `deleted` set. */
export const ResultRow = defineEntity({
  name: 'ResultRow',
  tableName: 'results',
  // (orgId, storageKey): a deletion finds the cache hits that share the deleted file. The cache
  // lookup's partial index holds only the rows a hit may reuse, newest first.
  indexes: [
    { properties: ['orgId', 'createdAt'] },
    { properties: ['orgId', 'storageKey'] },
    {
      name: 'results_cache_lookup_index',
      expression:
        `create index "results_cache_lookup_index" on "results" ("org_id", "cache_key", "created_at" desc, "request_id" desc) ` +
        `where "status" = 'done' and not "deleted" and not "file_deleted"`,
    },
    { name: 'results_pending_index', expression: `create index "results_pending_index" on "results" ("created_at") where "status" = 'pending'` },
    { name: 'results_test_expiry_index', expression: `create index "results_test_expiry_index" on "results" ("expires_at") where "test" and not "deleted"` },
  ],
  properties: {
    requestId: p.string().primary(),
    orgId: p.string(),
    /** 'template', or 'screenshot' / 'pdf' for captures of a web page. */
    kind: p.string().default('template'),
    templateId: p.string(),
    templateName: p.string(),
    /** The template version rendered; null for captures and for renders made before versions existed. */
    templateVersion: p.integer().nullable(),
    /** The captured page; null for template renders. */
    url: p.text().nullable(),
    status: p.string(),
    format: p.string(),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    expiresAt: p.bigint('number').nullable(),
    storageKey: p.text().nullable(),
    fileName: p.text(),
    contentType: p.string().nullable(),
    bytes: p.bigint('number').nullable(),
    cached: p.boolean().default(false),
    cacheKey: p.string().nullable(),
    batchName: p.text().nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    request: p.json<Record<string, unknown>>(),
    /** A cache hit that stored its data by reference: the request that stored it. */
    dataFrom: p.string().nullable(),
    failureReason: p.text().nullable(),
    credits: p.integer(),
    deleted: p.boolean().default(false),
    /** The stored file is gone (its owning result was deleted); cached copies pointing at it can no longer serve it. */
    fileDeleted: p.boolean().default(false),
    createdAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    /** What fitting did to the text of the render's fitted elements. */
    fit: p.json<TextFits>().nullable(),
    /** Made with a test key. */
    test: p.boolean().default(false),
    /** Video renders only: progress of the capture while pending. */
    framesDone: p.integer().nullable(),
    framesTotal: p.integer().nullable(),
    /** Where the webhook's delivery stands; null without a webhookUrl. */
    webhook: p.json<WebhookDeliveryView>().nullable(),
  },
});
export type ResultRow = InferEntity<typeof ResultRow>;

/** Bytes each stored (non-cached) file adds to its organization's uploads, kept so a deletion can take them back. */
export const StoredFileRow = defineEntity({
  name: 'StoredFileRow',
  tableName: 'account_stored_files',
  properties: {
    requestId: p.string().primary(),
    orgId: p.string(),
    bytes: p.bigint('number'),
  },
});
export type StoredFileRow = InferEntity<typeof StoredFileRow>;

/** An organization's uploaded font; a deleted font's row goes. */
export const FontRow = defineEntity({
  name: 'FontRow',
  tableName: 'fonts',
  properties: {
    id: p.string().primary(),
    orgId: p.string().index(),
    family: p.string(),
    originalName: p.string(),
    weight: p.integer(),
    style: p.string(),
    format: p.string(),
    subsets: p.array(),
    category: p.string(),
    bytes: p.bigint('number'),
    storageKey: p.string(),
    createdAt: p.datetime(),
  },
});
export type FontRow = InferEntity<typeof FontRow>;

/** An organization's uploaded image; a deleted upload's row goes. */
export const UploadRow = defineEntity({
  name: 'UploadRow',
  tableName: 'uploads',
  properties: {
    id: p.string().primary(),
    orgId: p.string(),
    contentType: p.string(),
    bytes: p.bigint('number'),
    width: p.integer(),
    height: p.integer(),
    storageKey: p.string(),
    createdAt: p.datetime(),
  },
  // Listed newest first per organization, paged like results.
  indexes: [{ properties: ['orgId', 'createdAt'] }],
});
export type UploadRow = InferEntity<typeof UploadRow>;

/**
 * A key that signs GET /img URLs. The secret is kept sealed, as the event holds it: verifying a
 * signature needs the secret itself, and a copy of this table alone reveals none. Revoked keys keep
 * their row, so listings show when they stopped working.
 */
export const UrlSigningKeyRow = defineEntity({
  name: 'UrlSigningKeyRow',
  tableName: 'url_signing_keys',
  properties: {
    id: p.string().primary(),
    orgId: p.string().index(),
    sealedSecret: p.text(),
    createdAt: p.datetime(),
    rotatedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type UrlSigningKeyRow = InferEntity<typeof UrlSigningKeyRow>;

/** Last global position each projection applied; written in the same transaction as its rows. */
export const ProjectionCheckpoint = defineEntity({
  name: 'ProjectionCheckpoint',
  tableName: 'projection_checkpoints',
  properties: {
    name: p.string().primary(),
    position: p.bigint('number'),
  },
});
export type ProjectionCheckpoint = InferEntity<typeof ProjectionCheckpoint>;

/**
 * A batch as its own stream tells it: what it was asked with, and how it ended. How far its rows
 * got while it runs is read from their results, which are renders of their own.
 */
export const BatchRow = defineEntity({
  name: 'BatchRow',
  tableName: 'batches',
  properties: {
    id: p.string().primary(),
    orgId: p.string(),
    name: p.string(),
    templateId: p.string(),
    templateVersion: p.integer().nullable(),
    outputFormat: p.string(),
    total: p.integer(),
    credits: p.integer(),
    merge: p.boolean(),
    webhookUrl: p.text().nullable(),
    rowsStorageKey: p.string(),
    status: p.string(),
    createdAt: p.datetime(),
    cancelledAt: p.datetime().nullable(),
    endedAt: p.datetime().nullable(),
    done: p.integer().nullable(),
    failed: p.integer().nullable(),
    cached: p.integer().nullable(),
    skipped: p.integer().nullable(),
    creditsCharged: p.integer().nullable(),
    mergedStorageKey: p.string().nullable(),
  },
  // Listed newest first per organization, and found by name within it.
  indexes: [{ properties: ['orgId', 'createdAt'] }, { properties: ['orgId', 'name'] }],
});
export type BatchRow = InferEntity<typeof BatchRow>;

export const readModelEntities = [TemplateRow, ApiKeyRow, AccountRow, ResultRow, StoredFileRow, FontRow, UploadRow, UrlSigningKeyRow, BatchRow, ProjectionCheckpoint];
