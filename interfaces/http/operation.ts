import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import type { RequestContext } from '../../application/shared/request-context.js';
import type { AppServices } from './app-services.js';

export type Tag = 'templates' | 'renders' | 'batches' | 'results' | 'captures' | 'account' | 'uploads' | 'audit' | 'files' | 'signed-urls';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call an operation: a caller with an API key (every /api route), anyone holding the link
 * (a result file: the link, and its signature when it expires, is the credential), or an image URL's
 * holder (an API key in the header or query, or a URL signed with a URL-signing key).
 */
export type Access = 'api-key' | 'link' | 'image-url';

type Output<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;

/** A validated request: its path parameters, query and body, each by its own schema (or, for a form, as `readBody` read it). */
export interface OperationInput<P, Q, V> {
  readonly path: Output<P>;
  readonly query: Output<Q>;
  readonly body: V;
}

/** What a signed image URL granted its holder: the values it signed, and how long caches may keep the image. */
export interface SignedImage {
  readonly values: readonly (readonly [string, string])[];
  readonly cacheControl: string;
}

/** What a use case may read of the request besides its input, whatever the transport (REST headers; none over tRPC). */
export interface RequestFacts {
  header(name: string): string | undefined;
  /** Set when the request came with a signed image URL instead of an API key. */
  readonly signedImage?: SignedImage;
}

/** What a REST answer is written from. */
export interface Exchange<P, Q, V> {
  readonly input: OperationInput<P, Q, V>;
  readonly services: AppServices;
  readonly request: Request;
  readonly facts: RequestFacts;
}

/**
 * One operation of the API, declared once: the express route, the OpenAPI document and the tRPC
 * procedure are derived from it (interfaces/rest/operation-routes.ts, interfaces/rest/openapi.ts,
 * interfaces/trpc/app-router.ts). `call` is the use case; `send` writes REST answers that are not
 * the JSON of its result (files, streams, 202s, headers).
 */
export interface Operation<P = unknown, Q = unknown, B = unknown, R = unknown, V = Output<B>> {
  /** The OpenAPI operationId: what generated clients name their methods. */
  readonly id: string;
  readonly method: Method;
  /** As OpenAPI writes it: /api/v2/my-templates/{templateId}. */
  readonly path: string;
  readonly access?: Access;
  readonly tags: readonly Tag[];
  readonly summary: string;
  readonly description?: string;
  /** Deprecated in favour of the operation at this path (answers carry RFC 9745 Deprecation and a successor-version link). */
  readonly deprecated?: { readonly successor: string };
  readonly input: {
    readonly path?: P;
    readonly query?: Q;
    /** The JSON body. */
    readonly body?: B;
    /** A request without a body is one with an empty body. */
    readonly bodyOptional?: boolean;
    /** The multipart/form-data form the body may come as (for the document; `readBody` reads it). */
    readonly form?: z.ZodType;
  };
  /** The answer when all goes well (200 unless said): described, and its JSON schema or binary media types. */
  readonly answer: {
    readonly status?: 200 | 202;
    readonly description: string;
    readonly schema?: z.ZodType;
    readonly binary?: readonly string[];
  };
  readonly call: (services: AppServices, context: RequestContext, input: OperationInput<P, Q, V>, facts: RequestFacts) => Promise<R>;
  /** Reads and validates a REST body that may not be JSON (multipart forms). */
  readonly readBody?: (request: Request) => Promise<V>;
  /** A JSON body checked by more than its schema (per-component messages); by default the schema parses it. */
  readonly parseBody?: (value: unknown) => V;
  readonly send?: (response: Response, result: R, exchange: Exchange<P, Q, V>) => void | Promise<void>;
  /** The express route where OpenAPI's path cannot say it (GET /img/{templateId}.jpg also answers .png and .webp). */
  readonly route?: string;
  /** What the document says beyond the table's fields: other answers (202, 304), parameters the schemas cannot express. */
  readonly document?: Partial<ZodOpenApiOperationObject>;
}

/** An operation whose input and result types follow from its schemas and use case. */
export const operation = <
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R = unknown,
  V = Output<B>,
>(
  declared: Operation<P, Q, B, R, V>,
): Operation<P, Q, B, R, V> => declared;

/** A JSON answer or body, for the document. */
export const jsonContent = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

/** Binary answers of these media types, for the document. */
export const binaryContent = (contentTypes: readonly string[]) =>
  Object.fromEntries(contentTypes.map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }]));

export type AnyOperation = Operation<any, any, any, any, any>;
