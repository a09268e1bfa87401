import type { Migration } from '../types.js';
import { apiKeysSchema } from './api-keys.js';
import { auditFeedbackSchema } from './audit-feedback.js';
import { coreSchema } from './core.js';
import { counterfactualsSchema } from './counterfactuals.js';
import { dropAuditTsSchema } from './drop-audit-ts.js';
import { dropFtsSchema } from './drop-fts.js';
import { episodeContextSchema } from './episode-context.js';
import { factsValueSchema } from './facts-value.js';
import { fileWritesSchema } from './file-writes.js';
import { ftsSchema } from './fts.js';
import { insightRecordsSchema } from './insight-records.js';
import { nameFormsSchema } from './name-forms.js';
import { nightlyOwnerSchema, nightlyPluginScopesSchema, nightlySchema } from './nightly.js';
import { orderIndexesSchema } from './order-indexes.js';
import { recallForgetsSchema } from './recall-forgets.js';
import { restoreTokenSchema } from './restore-token.js';
import { sagaJournalSchema } from './saga-journal.js';
import { retrievalChangesSchema } from './retrieval-changes.js';
import { retrievalSnapshotsSchema } from './retrieval-snapshots.js';
import { stagingSchema } from './staging.js';
import { textFormsSchema } from './text-forms.js';
import { vocabSchema } from './vocab.js';
import { versionsSchema } from './versions.js';
import { watchRulesSchema } from './watch-rules.js';
import { wikiFileRemovalsSchema } from './wiki-file-removals.js';

/** The stores package's migrations, numbered 1..n; the kernel applies the pending ones in order. */
export const storesMigrations: Migration[] = [coreSchema, ftsSchema, vocabSchema, episodeContextSchema, retrievalChangesSchema, dropFtsSchema, dropAuditTsSchema, retrievalSnapshotsSchema, orderIndexesSchema, factsValueSchema, wikiFileRemovalsSchema, recallForgetsSchema, counterfactualsSchema, watchRulesSchema, versionsSchema, stagingSchema, insightRecordsSchema, apiKeysSchema, nightlySchema, sagaJournalSchema, nightlyPluginScopesSchema, restoreTokenSchema, nightlyOwnerSchema, fileWritesSchema, auditFeedbackSchema, textFormsSchema, nameFormsSchema];
