import type { MikroORM } from '@mikro-orm/postgresql';
import type { ProjectionSet } from '../projections/projection-set.js';
import { createAccountReadModel } from './account-read-model.js';
import { createAssetReadModel } from './asset-read-model.js';
import { createBatchReadModel } from './batch-read-model.js';
import { cachedAccountReadModel, cachedAssetReadModel, cachedResultReadModel, cachedTemplateReadModel } from './cached-read-models.js';
import { createResultReadModel } from './result-read-model.js';
import { createTemplateReadModel } from './template-read-model.js';
import { createUrlSigningKeyReadModel } from './url-signing-key-read-model.js';

/**
 * The read models of a process. Keys, templates, fonts and cache keys are read on every render and
 * are cached where the process follows the log (`projections` given): only such a process knows when
 * a cached row went stale.
 */
export const openReadModelSet = (orm: MikroORM, projections: ProjectionSet | null) => {
  const results = createResultReadModel(orm);
  return {
    accounts: projections ? cachedAccountReadModel(createAccountReadModel(orm), projections) : createAccountReadModel(orm),
    templates: projections ? cachedTemplateReadModel(createTemplateReadModel(orm), projections) : createTemplateReadModel(orm),
    cachedResults: projections ? cachedResultReadModel(results, projections) : results,
    results,
    assets: projections ? cachedAssetReadModel(createAssetReadModel(orm), projections) : createAssetReadModel(orm),
    signingKeys: createUrlSigningKeyReadModel(orm),
    batches: createBatchReadModel(orm),
  };
};
