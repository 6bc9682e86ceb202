import { z } from 'zod';
import type { AppServices } from '../http/app-services.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import type { AnyOperation, Operation, RequestFacts } from '../http/operation.js';
import { authedProcedure } from './trpc.js';

type Shape<Schema> = Schema extends z.ZodObject<infer S> ? S : Record<never, never>;

/**
 * A procedure's input: the operation's path, query and body fields side by side (the body under
 * `bodyAs` when it is not an object to merge), the one schema when only one part is present, nothing
 * when none is. A list's query is optional as a whole, with its defaults applied.
 */
type ProcedureInput<P, Q, B, K> = K extends string
  ? z.ZodObject<Shape<P> & Shape<Q> & { [Key in K]: B extends z.ZodType ? B : never }>
  : [P, Q, B] extends [undefined, undefined, undefined]
    ? z.ZodOptional<z.ZodObject<Record<never, never>, z.core.$strict>>
    : [P, B] extends [undefined, undefined]
      ? z.ZodPrefault<Q extends z.ZodType ? Q : never>
      : [P, Q] extends [undefined, undefined]
        ? B
        : [Q, B] extends [undefined, undefined]
          ? P
          : z.ZodObject<Shape<P> & Shape<Q> & Shape<B>>;

type AsParser<T> = T extends z.ZodType ? T : never;

const keysOf = (schema: unknown): readonly string[] => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);

const pick = (value: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.filter((key) => key in value).map((key) => [key, value[key]]));

/** Nothing of the request reaches a use case over tRPC but its input. */
const NO_FACTS: RequestFacts = { header: () => undefined };

/** The parts of an operation's input a procedure carries, and how the parsed input splits back into them. */
const procedureInput = (operation: AnyOperation, bodyAs: string | undefined) => {
  const { path, query, body } = operation.input;
  const parts = [path, query, body].filter((part) => part !== undefined);
  if (bodyAs === undefined && parts.length <= 1) {
    const schema = path ?? body ?? (query ? (query as z.ZodType).prefault({}) : z.object({}).strict().optional());
    return { schema, split: (input: unknown) => ({ path: path ? input : undefined, query: query ? input : undefined, body: body ? input : undefined }) };
  }
  const bodyShape = body === undefined ? {} : bodyAs === undefined ? (body as z.ZodObject).shape : { [bodyAs]: body };
  const schema = z.object({ ...(path ? (path as z.ZodObject).shape : {}), ...(query ? (query as z.ZodObject).shape : {}), ...bodyShape });
  const [pathKeys, queryKeys, bodyKeys] = [keysOf(path), keysOf(query), keysOf(body)];
  return {
    schema,
    split: (input: Record<string, unknown>) => ({
      path: path ? pick(input, pathKeys) : undefined,
      query: query ? pick(input, queryKeys) : undefined,
      body: body ? (bodyAs === undefined ? pick(input, bodyKeys) : input[bodyAs]) : undefined,
    }),
  };
};

interface ProcedureOptions<K, R, A> {
  /** The name the body goes under, where it is not an object whose fields sit beside the path's. */
  readonly bodyAs?: K;
  /** What the procedure returns where REST answers otherwise (an empty 200, a file). */
  readonly answer?: (result: R) => A;
}

/**
 * tRPC procedures of the operation table: the same input schemas and use cases as REST, a query
 * for a GET and a mutation for the rest.
 */
export const proceduresOf = (services: AppServices) => {
  const build = (operation: AnyOperation, options: ProcedureOptions<string | undefined, unknown, unknown>, kind: 'query' | 'mutation') => {
    if ((operation.method === 'get') !== (kind === 'query')) throw new Error(`${operation.id}: a GET is a query, anything else a mutation`);
    const { schema, split } = procedureInput(operation, options.bodyAs);
    const resolve = async ({ ctx, input }: { ctx: { context: RequestContext }; input: unknown }) => {
      const parts = split(input as Record<string, unknown>);
      const body = operation.parseBody && parts.body !== undefined ? operation.parseBody(parts.body) : parts.body;
      const result: unknown = await operation.call(services, ctx.context, { ...parts, body }, NO_FACTS);
      return options.answer ? options.answer(result) : result;
    };
    return { procedure: authedProcedure.input(schema), resolve };
  };
  return {
    query: <P, Q, B, R, V, K extends string | undefined = undefined, A = R>(operation: Operation<P, Q, B, R, V>, options: ProcedureOptions<K, R, A> = {}) => {
      const { procedure, resolve } = build(operation, options as ProcedureOptions<string | undefined, unknown, unknown>, 'query');
      return (procedure as unknown as ReturnType<typeof authedProcedure.input<AsParser<ProcedureInput<P, Q, B, K>>>>).query(resolve as () => Promise<NoInfer<A>>);
    },
    mutation: <P, Q, B, R, V, K extends string | undefined = undefined, A = R>(operation: Operation<P, Q, B, R, V>, options: ProcedureOptions<K, R, A> = {}) => {
      const { procedure, resolve } = build(operation, options as ProcedureOptions<string | undefined, unknown, unknown>, 'mutation');
      return (procedure as unknown as ReturnType<typeof authedProcedure.input<AsParser<ProcedureInput<P, Q, B, K>>>>).mutation(resolve as () => Promise<NoInfer<A>>);
    },
  };
};
