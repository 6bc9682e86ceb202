import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { defaultPayloadConverter } from '@temporalio/common';
import type { History } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';

export type { History };

/*
 * Histories are saved as Temporal's JSON history export (what the CLI and the UI download). The
 * SDK's historyToJSON / historyFromJSON (@temporalio/common/lib/proto-utils) do exactly what these
 * two do, but through the protobufjs copy npm nests under @temporalio/common, while the history
 * types are built by the copy nested under @temporalio/proto: two copies (the root's protobufjs is
 * 7.x, for grpc and OpenTelemetry), so protojson's `instanceof Type` refuses them with
 * "TypeError: type must be a Type", and runReplayHistory given a JSON history fails the same way.
 * Here protojson comes from the copy @temporalio/proto itself resolves, whatever npm's layout.
 */
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): unknown;
}
const protojson = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'))('protobufjs/ext/protojson') as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

export const historyToJSON = (history: History): string => JSON.stringify(protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2);

/** A history as runReplayHistory takes it, from Temporal's JSON export (fields it does not know are ignored). */
export const historyFromJSON = (json: unknown): History => protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;

/**
 * One recorded history of a patched workflow, saved as
 * test/workflows/histories/<workflowType>-<patchId>-<branch>.json: `old` was run by the code from
 * before the patch, `new` by the code that takes the patched branch.
 */
export interface PatchHistory {
  readonly workflowType: string;
  readonly patchId: string;
  readonly branch: 'old' | 'new';
}

export interface RecordedHistory extends PatchHistory {
  readonly file: string;
  readonly history: History;
}

export const historiesDir = new URL('../histories/', import.meta.url);
const workflowsDir = new URL('../../../workflows/', import.meta.url);

/** Workflow types are camelCase, patch IDs kebab-case: the first dash ends the type, the last starts the branch. */
const NAME = /^([A-Za-z0-9]+)-(.+)-(old|new)\.json$/;

export const readRecordedHistories = async (): Promise<RecordedHistory[]> => {
  const files = (await readdir(historiesDir)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => {
      const [, workflowType, patchId, branch] = NAME.exec(file) ?? [];
      if (!workflowType || !patchId || !branch) throw new Error(`${file} is not named <workflowType>-<patchId>-<old|new>.json`);
      const history = historyFromJSON(JSON.parse(await readFile(new URL(file, historiesDir), 'utf8')));
      return { file, workflowType, patchId, branch: branch as PatchHistory['branch'], history };
    }),
  );
};

/** The workflow type a history was started as. */
export const workflowTypeOf = (history: History): string | undefined =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;

/** The patch IDs a history's markers record (Temporal's `core_patch` markers, one per patch the run took). */
export const patchIdsIn = (history: History): string[] =>
  (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return Object.values(marker.details ?? {}).flatMap((payloads) =>
      (payloads.payloads ?? []).map((payload) => (defaultPayloadConverter.fromPayload(payload) as { id?: unknown }).id).filter((id): id is string => typeof id === 'string'),
    );
  });

/** Every patch ID the workflow code asks about, by patched('...') or deprecatePatch('...'), in workflows/*.workflow.ts. */
export const patchIdsInWorkflowCode = async (): Promise<string[]> => {
  const files = (await readdir(workflowsDir)).filter((file) => file.endsWith('.workflow.ts'));
  const sources = await Promise.all(files.map((file) => readFile(new URL(file, workflowsDir), 'utf8')));
  const calls = sources.flatMap((source) => [...source.matchAll(/\b(?:patched|deprecatePatch)\(([^)]*)\)/g)].map((match) => (match[1] ?? '').trim()));
  const ids = calls.map((argument) => {
    const literal = /^(['"`])([^'"`]+)\1$/.exec(argument);
    if (!literal?.[2]) throw new Error(`patched(${argument}) does not name its patch ID as a string literal: the replay test cannot tell which histories it needs`);
    return literal[2];
  });
  return [...new Set(ids)].sort();
};
