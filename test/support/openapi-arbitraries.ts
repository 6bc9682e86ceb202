import fc from 'fast-check';

/*
 * Requests for every operation of the service's OpenAPI document, as fast-check arbitraries: mostly
 * what each operation's parameters and JSON body schema allow, and a steady share of what they do
 * not (wrong types, out-of-bounds numbers, huge strings, NUL, lone surrogates, unicode edge cases,
 * deep nesting, unknown fields, missing required fields, bogus ids, malformed bodies and keys).
 * The document is read as JSON Schema, so an operation or field added to the zod schemas is
 * covered without touching this file.
 */

type Schema = { readonly [keyword: string]: any };

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: unknown[] }>>;
  readonly components?: { readonly schemas?: Record<string, Schema> };
}

interface Parameter {
  readonly in: 'path' | 'query' | 'header';
  readonly name: string;
  readonly required?: boolean;
  readonly schema: Schema;
}

export interface Operation {
  /** `GET /api/v2/my-templates/{templateId}` */
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly pathParams: readonly Parameter[];
  readonly queryParams: readonly Parameter[];
  readonly body: Schema | null;
  /** The key travels in the `apiKey` query parameter (GET /img) instead of the header. */
  readonly keyInQuery: boolean;
}

/** Every path and method of the document, with its parameters and JSON body schema. */
export const operationsOf = (document: OpenApiDocument): Operation[] =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      return {
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        queryParams: parameters.filter((parameter) => parameter.in === 'query' && parameter.name !== 'apiKey'),
        body: operation.requestBody?.content['application/json']?.schema ?? null,
        keyInQuery: parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'apiKey'),
      };
    }),
  );

/**
 * A reference to something that exists only while the service runs (a template, a result, its file):
 * the runner resolves it to the `pick`-th entry of that pool when it sends the request.
 */
export class KnownId {
  readonly pool: IdPoolName;
  readonly pick: number;

  constructor(pool: IdPoolName, pick: number) {
    this.pool = pool;
    this.pick = pick;
  }
  toString() {
    return `known ${this.pool}[${this.pick}]`;
  }
  [fc.toStringMethod]() {
    return this.toString();
  }
}

export type IdPoolName = 'templates' | 'results' | 'files';

/** Text that goes into the URL exactly as it is, already percent-encoded (or deliberately not). */
export class RawText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
  [fc.toStringMethod]() {
    return `raw(${JSON.stringify(this.text.length > 120 ? `${this.text.slice(0, 120)}…(${this.text.length})` : this.text)})`;
  }
}

/** A token written into a JSON body as it is: numbers JSON can spell but JavaScript cannot hold exactly. */
export class JsonToken {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
  [fc.toStringMethod]() {
    return `json(${this.text})`;
  }
}

export type UrlValue = string | KnownId | RawText;

export type Auth = 'valid' | 'none' | 'wrong' | 'other-organization' | 'garbage';

export interface RequestPlan {
  readonly operation: string;
  readonly method: string;
  /** The path template's parameters, by name. */
  readonly pathParams: Record<string, UrlValue>;
  readonly query: readonly (readonly [string, UrlValue])[];
  readonly body: { readonly json: unknown } | { readonly raw: string } | null;
  readonly headers: Record<string, string>;
  readonly auth: Auth;
  /** What was broken on purpose, or 'valid' for a request the document allows (it may still name nothing that exists). */
  readonly broken: string;
}

/** Parameter and field names whose values name things that exist: mostly one that does. */
const ID_POOLS: Record<string, IdPoolName> = {
  templateId: 'templates',
  template: 'templates',
  sourceTemplateId: 'templates',
  identifier: 'results',
  requestId: 'results',
  fileName: 'files',
};

/** Strings databases, JSON and URL decoders trip over. */
const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '\ufeff',
  '\uffff',
  '\u202e\u2066evil',
  '\u2028\u2029',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦',
  '𝕳𝖊𝖑𝖑𝖔',
  '',
  ' ',
  '%',
  '%00',
  '%zz',
  '../../etc/passwd',
  '{{#a}}{{/b}}',
  '{{{x}}}',
  '<script>alert(1)</script>',
  "'; drop table events; --",
  '\\',
  '"',
  '__proto__',
  'constructor',
  'NaN',
  '1e309',
  '-0',
  '9'.repeat(400),
] as const;

/** Ids of nothing, or of things of another shape. */
const BOGUS_IDS = ['does-not-exist', '00000000-0000-0000-0000-000000000000', '0', '-1', 'null', 'undefined', '.', '..', 'a.b.c', 'x'.repeat(201)];

/** Path segments sent undecoded: bad percent-encoding, encoded NUL, separators, surrogate bytes, over-long. */
const RAW_SEGMENTS = ['%', '%zz', '%E0%A4%A', '%00', 'a%00b', '%ED%A0%80', '%C0%AF', '%FF', '%2e%2e', '%2F', 'a%2Fb', '%25', '%uD800', ';x=1', '%20', 'x'.repeat(3_000)];

const MAX_VALID_STRING = 60;

const ABSENT = Symbol('absent');

const weighted = <T>(arbitrary: fc.Arbitrary<T>, weight: number) => ({ arbitrary, weight });

const resolveRef = (document: OpenApiDocument, schema: Schema): Schema => {
  let current = schema;
  while (typeof current.$ref === 'string') {
    const name = current.$ref.replace('#/components/schemas/', '');
    const target = document.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
    current = target;
  }
  return current;
};

const typeOf = (schema: Schema): string | undefined => (Array.isArray(schema.type) ? schema.type[0] : schema.type);

/** Any JSON value, small: what a schema with no type (`{}`) takes. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/**
 * Component properties are `{}` in the document, described as `<kind>; <default as JSON> when absent`:
 * the default is always valid, the kind says what else is.
 */
const describedValue = (description: unknown): fc.Arbitrary<unknown> | null => {
  if (typeof description !== 'string') return null;
  const match = /^(\w+); (.*) when absent$/.exec(description);
  if (!match) return null;
  let defaultValue: unknown;
  try {
    defaultValue = JSON.parse(match[2]!);
  } catch {
    return null;
  }
  const byKind: Record<string, fc.Arbitrary<unknown>> = {
    text: fc.string({ maxLength: 40, unit: 'grapheme' }),
    number: fc.integer({ min: 0, max: 200 }),
    boolean: fc.boolean(),
    color: fc.integer({ min: 0, max: 0xffffff }).map((rgb) => `#${rgb.toString(16).padStart(6, '0')}`),
  };
  const kind = byKind[match[1]!];
  return kind ? fc.oneof({ arbitrary: fc.constant(defaultValue), weight: 2 }, kind) : fc.constant(defaultValue);
};

/** A URL a webhook or capture may name: public, private, loopback, not http, or not a URL. */
const urlValue = fc.oneof(
  { arbitrary: fc.constantFrom('https://93.184.215.14/hook', 'http://1.1.1.1:8080/x?y=1'), weight: 3 },
  fc.constantFrom('http://127.0.0.1:5432/', 'http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data', 'http://localhost/'),
  fc.webUrl({ withQueryParameters: true }),
  fc.constantFrom('file:///etc/passwd', 'javascript:alert(1)', 'ftp://example.org/', 'http://', 'not a url', 'http://exa mple.com/'),
);

const momentValue = (format: 'date-time' | 'date') =>
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => (format === 'date' ? date.toISOString().slice(0, 10) : date.toISOString()));

/** Values the schema accepts; ids are mostly ones the running service knows. */
const validValue = (document: OpenApiDocument, given: Schema, name = ''): fc.Arbitrary<unknown> => {
  const schema = resolveRef(document, given);
  if (name === 'url' && typeOf(schema) === 'string') return urlValue;
  const pool = ID_POOLS[name];
  if (pool && typeOf(schema) === 'string' && !schema.enum && !schema.pattern) {
    return fc.oneof({ arbitrary: fc.nat(20).map((pick) => new KnownId(pool, pick)), weight: 4 }, fc.string({ minLength: 1, maxLength: 40 }));
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => validValue(document, alternative, name)));
  switch (typeOf(schema)) {
    case 'string': {
      if (schema.format === 'date-time' || schema.format === 'date') return momentValue(schema.format);
      if (schema.format === 'uri') return urlValue;
      if (typeof schema.pattern === 'string') {
        const maxLength = schema.maxLength ?? Infinity;
        return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= maxLength && text.length >= (schema.minLength ?? 0));
      }
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_VALID_STRING, MAX_VALID_STRING));
      return fc.oneof(
        { arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme-ascii' }), weight: 3 },
        fc.string({ minLength, maxLength, unit: 'grapheme' }),
        fc.string({ minLength, maxLength, unit: 'binary' }),
      );
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.oneof(
        fc.integer({ min: Math.ceil(schema.minimum ?? -1_000_000), max: Math.floor(schema.maximum ?? 1_000_000) }),
        fc.double({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000, noNaN: true, noDefaultInfinity: true }),
      );
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(document, schema.items ?? {}), { maxLength: Math.min(schema.maxItems ?? 4, 4), minLength: schema.minItems ?? 0 });
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      if (properties.length > 0) {
        const required = new Set((schema.required ?? []) as string[]);
        // Optional fields mostly stay away: each has its own ways to refuse, and together they would refuse nearly every request.
        const field = (key: string, property: Schema) =>
          required.has(key) ? validValue(document, property, key) : fc.oneof(weighted(fc.constant(ABSENT), 3), validValue(document, property, key));
        return fc
          .record(Object.fromEntries(properties.map(([key, property]) => [key, field(key, property)])))
          .map((object) => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== ABSENT)));
      }
      const values = schema.additionalProperties === false ? fc.constant(undefined) : validValue(document, schema.additionalProperties === true ? {} : (schema.additionalProperties ?? {}));
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), values, { maxKeys: 6 });
    }
    default:
      return describedValue(schema.description) ?? anyJson;
  }
};

/** `depth` levels of objects or arrays around one value. */
const nested = (depth: number, asArray: boolean): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = asArray ? [value] : { a: value };
  return value;
};

/** Values no schema of the API takes, whatever the field. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, [], {}, [null], { '': null }),
  fc.tuple(fc.integer({ min: 30, max: 2_000 }), fc.boolean()).map(([depth, asArray]) => nested(depth, asArray)),
  fc.integer({ min: 1_000, max: 300_000 }).map((length) => 'x'.repeat(length)),
  fc.string({ maxLength: 30, unit: 'binary' }).map((text) => `${text}\u0000`),
  fc.string({ maxLength: 30 }).map((text) => `${text}\udc80`),
  fc.dictionary(fc.constantFrom(...HOSTILE_STRINGS), fc.constant('v'), { minKeys: 1, maxKeys: 2 }),
  fc.constantFrom('1e999', '-1e999', '-0', '1e-400', '123456789012345678901234567890', '0.1e1', '-0.0').map((text) => new JsonToken(text)),
  fc.integer({ min: 1_000, max: 100_000 }).map((width) => Array.from({ length: width }, () => 0)),
  fc.integer({ min: 1_000, max: 30_000 }).map((width) => Object.fromEntries(Array.from({ length: width }, (_, index) => [`k${index}`, index]))),
);

/** Values this schema refuses: its bounds, types and shape broken one way each, or anything hostile. */
const invalidValue = (document: OpenApiDocument, given: Schema, name = ''): fc.Arbitrary<unknown> => {
  const schema = resolveRef(document, given);
  const specific: fc.Arbitrary<unknown>[] = [];
  if (ID_POOLS[name]) specific.push(fc.constantFrom(...BOGUS_IDS));
  if (Array.isArray(schema.enum)) specific.push(fc.constantFrom('', 'JPEG', `${schema.enum[0]} `, 'other'));
  switch (typeOf(schema)) {
    case 'string':
      specific.push(fc.constantFrom(42, true, ['a'], { a: 'b' }));
      if (schema.maxLength !== undefined) specific.push(fc.constant('y'.repeat(schema.maxLength + 1)));
      if (schema.minLength) specific.push(fc.constant(''));
      break;
    case 'integer':
    case 'number': {
      const { minimum, maximum } = schema;
      specific.push(fc.constantFrom('12', '', null, [1], true));
      if (minimum !== undefined) specific.push(fc.constantFrom(minimum - 1, minimum - 0.5, -1e20));
      if (maximum !== undefined) specific.push(fc.constantFrom(maximum + 1, maximum + 0.5, 1e20));
      if (typeOf(schema) === 'integer') specific.push(fc.constantFrom(1.5, 0.000001, 2 ** 64));
      break;
    }
    case 'boolean':
      specific.push(fc.constantFrom('true', 1, 0, null));
      break;
    case 'array':
      specific.push(fc.constantFrom('a,b', {}, 3));
      specific.push(fc.array(invalidValue(document, schema.items ?? {}), { minLength: 1, maxLength: 3 }));
      if (schema.maxItems !== undefined) specific.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, (_, index) => `item${index}`)));
      break;
    case 'object':
      specific.push(fc.constantFrom<unknown>([], 'object', 7, null));
      specific.push(brokenObject(document, schema));
      break;
  }
  return fc.oneof({ arbitrary: fc.oneof(...(specific.length > 0 ? specific : [anyJson])), weight: 2 }, hostileValue);
};

/** A valid object with one thing wrong: a field invalid, a required one missing, or one that does not exist. */
const brokenObject = (document: OpenApiDocument, schema: Schema): fc.Arbitrary<unknown> => {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const required = (schema.required ?? []) as string[];
  const valid = validValue(document, schema) as fc.Arbitrary<Record<string, unknown>>;
  const ways: fc.Arbitrary<unknown>[] = [
    fc.tuple(valid, fc.constantFrom('unknownField', '__proto__', 'constructor', '', '\u0000', '\ud800'), hostileValue).map(([object, key, value]) => {
      const copy = { ...object };
      Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
      return copy;
    }),
  ];
  if (properties.length > 0) {
    ways.push(
      fc.constantFrom(...properties).chain(([key, property]) =>
        fc.tuple(valid, invalidValue(document, property, key)).map(([object, value]) => ({ ...object, [key]: value })),
      ),
    );
  } else {
    ways.push(fc.dictionary(fc.string({ maxLength: 10 }), hostileValue, { minKeys: 1, maxKeys: 3 }));
  }
  if (required.length > 0) {
    ways.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([object, key]) => {
        const { [key]: _dropped, ...rest } = object;
        return rest;
      }),
    );
  }
  return fc.oneof(...ways);
};

/** A path or query value as sent: a scalar as text, the odd thing that is no text at all stays raw JSON. */
const asUrlValue = (value: unknown): UrlValue => {
  if (value instanceof KnownId || value instanceof RawText) return value;
  if (value instanceof JsonToken) return value.text;
  if (typeof value === 'string') return value;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
};

/** Query pairs; arrays repeat the name, as clients send them. */
const queryPairs = (name: string, value: unknown): [string, UrlValue][] =>
  Array.isArray(value) ? value.map((item) => [name, asUrlValue(item)]) : value === undefined ? [] : [[name, asUrlValue(value)]];

/** Query extras no operation declares: unknown names, extended (`a[b]`) syntax, repeated names, raw encodings. */
const extraQuery: fc.Arbitrary<[string, UrlValue][]> = fc.oneof(
  fc.tuple(fc.constantFrom('unknown', 'a[b][c][d][e][f][g]', 'tags[x]', 'page[]', '__proto__[x]', 'size', 'page', 'x'.repeat(500)), fc.constantFrom(...HOSTILE_STRINGS)).map(
    ([name, value]): [string, UrlValue][] => [[name, value]],
  ),
  fc.constantFrom(...RAW_SEGMENTS).map((raw): [string, UrlValue][] => [['q', new RawText(raw)]]),
  fc.integer({ min: 2, max: 2_000 }).map((count): [string, UrlValue][] => Array.from({ length: count }, (): [string, UrlValue] => ['tags', 't'])),
);

const keyArbitrary: fc.Arbitrary<Auth> = fc.oneof(
  weighted(fc.constant<Auth>('valid'), 16),
  fc.constantFrom<Auth>('none', 'wrong', 'other-organization', 'garbage'),
);

/** Bodies that are not the JSON they claim to be, or not JSON at all. */
const brokenBody: fc.Arbitrary<{ raw: string; headers?: Record<string, string> }> = fc.oneof(
  fc.constantFrom<{ raw: string; headers?: Record<string, string> }>(
    { raw: '{' },
    { raw: '{"a":1,}' },
    { raw: "{'a':1}" },
    { raw: '' },
    { raw: 'null' },
    { raw: '"text"' },
    { raw: '[1,2,3]' },
    { raw: '1e999' },
    { raw: '{"a":1}garbage' },
    { raw: '\ufeff{}' },
    { raw: '{"__proto__":{"admin":true}}' },
    { raw: '{"a":"\\u0000"}' },
    { raw: '{"a":"\\ud800"}' },
    { raw: '{"a":"\\x"}' },
    { raw: '{}', headers: { 'content-type': 'application/json; charset=ebcdic' } },
    { raw: '{}', headers: { 'content-type': 'application/json; charset=utf-16' } },
    { raw: '{}', headers: { 'content-encoding': 'gzip' } },
    { raw: '{}', headers: { 'content-encoding': 'br' } },
    { raw: '{}', headers: { 'content-encoding': 'snappy' } },
    { raw: '{"a":1}', headers: { 'content-type': 'text/plain' } },
    { raw: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    { raw: '{"a":1}', headers: { 'content-type': 'application/x-json-nonsense' } },
  ),
  fc.integer({ min: 33, max: 200_000 }).map((depth) => ({ raw: `${'['.repeat(depth)}${']'.repeat(depth)}` })),
  fc.integer({ min: 33, max: 50_000 }).map((depth) => ({ raw: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` })),
  fc.constant({ raw: `{"a":"${'z'.repeat(3 * 1024 * 1024)}"}` }),
);

/** The request a client following the document would send: no part broken on purpose. */
const validPlan = (document: OpenApiDocument, operation: Operation): fc.Arbitrary<RequestPlan> =>
  fc
    .record({
      path: fc.record(Object.fromEntries(operation.pathParams.map((parameter) => [parameter.name, validValue(document, parameter.schema, parameter.name).map(asUrlValue)]))),
      query: fc.tuple(
        ...operation.queryParams.map((parameter) =>
          (parameter.required ? validValue(document, parameter.schema, parameter.name) : fc.option(validValue(document, parameter.schema, parameter.name), { nil: undefined })).map(
            (value) => queryPairs(parameter.name, value),
          ),
        ),
      ),
      body: operation.body ? validValue(document, operation.body).map((json) => ({ json })) : fc.constant(null),
      auth: fc.constant<Auth>('valid'),
    })
    .map(({ path, query, body, auth }) => ({
      operation: operation.name,
      method: operation.method,
      pathParams: path,
      query: query.flat(),
      body,
      headers: {},
      auth,
      broken: 'valid',
    }));

/** One part of an otherwise valid request broken on purpose; `broken` says which. */
const brokenPlans = (document: OpenApiDocument, operation: Operation): fc.Arbitrary<RequestPlan>[] => {
  const valid = validPlan(document, operation);
  const plans: fc.Arbitrary<RequestPlan>[] = [
    fc.tuple(valid, keyArbitrary.filter((auth) => auth !== 'valid')).map(([plan, auth]) => ({ ...plan, auth, broken: `key ${auth}` })),
    fc.tuple(valid, extraQuery).map(([plan, extra]) => ({ ...plan, query: [...plan.query, ...extra], broken: 'query extra' })),
  ];
  for (const parameter of operation.pathParams) {
    plans.push(
      fc
        .tuple(valid, fc.oneof(invalidValue(document, parameter.schema, parameter.name).map(asUrlValue), fc.constantFrom(...RAW_SEGMENTS).map((raw) => new RawText(raw))))
        .map(([plan, value]) => ({ ...plan, pathParams: { ...plan.pathParams, [parameter.name]: value }, broken: `path ${parameter.name}` })),
    );
  }
  for (const parameter of operation.queryParams) {
    plans.push(
      fc.tuple(valid, invalidValue(document, parameter.schema, parameter.name)).map(([plan, value]) => ({
        ...plan,
        query: [...plan.query.filter(([name]) => name !== parameter.name), ...queryPairs(parameter.name, value)],
        broken: `query ${parameter.name}`,
      })),
    );
    if (parameter.required) {
      plans.push(valid.map((plan) => ({ ...plan, query: plan.query.filter(([name]) => name !== parameter.name), broken: `query ${parameter.name} missing` })));
    }
  }
  if (operation.body) {
    const body = operation.body;
    plans.push(fc.tuple(valid, invalidValue(document, body)).map(([plan, json]) => ({ ...plan, body: { json }, broken: 'body' })));
    plans.push(fc.tuple(valid, brokenBody).map(([plan, { raw, headers }]) => ({ ...plan, body: { raw }, headers: { ...headers }, broken: 'body encoding' })));
  } else {
    // An operation without a body still receives one from careless clients.
    plans.push(fc.tuple(valid, fc.oneof(hostileValue, brokenBody.map(({ raw }) => raw))).map(([plan, json]) => ({ ...plan, body: { json }, broken: 'unexpected body' })));
  }
  const wrongMethod = otherMethod(document, operation, valid);
  if (wrongMethod) plans.push(wrongMethod);
  return plans;
};

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The operation's path asked with a method none of its operations has. */
const otherMethod = (document: OpenApiDocument, operation: Operation, valid: fc.Arbitrary<RequestPlan>): fc.Arbitrary<RequestPlan> | null => {
  const declared = Object.keys(document.paths[operation.path] ?? {}).map((method) => method.toUpperCase());
  const others = METHODS.filter((method) => !declared.includes(method));
  return others.length > 0 ? fc.tuple(valid, fc.constantFrom(...others)).map(([plan, method]) => ({ ...plan, method, broken: `method ${method}` })) : null;
};

/** Requests for one operation: three in five follow the document, the rest break one part of it. */
export const requestArbitrary = (document: OpenApiDocument, operation: Operation): fc.Arbitrary<RequestPlan> =>
  fc.oneof(weighted(validPlan(document, operation), 3), weighted(fc.oneof(...brokenPlans(document, operation)), 2));

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) becomes the three bytes a
 * careless encoder writes for it, so such requests can be sent at all.
 */
export const encodeUrlComponent = (text: string): string => {
  let encoded = '';
  for (const character of text) {
    const code = character.charCodeAt(0);
    if (character.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      encoded += encodeURIComponent(character);
    }
  }
  return encoded;
};
