import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Checks the answers the end-to-end suite receives against the gateway's
 * OpenAPI document (services/gateway/src/openapi/openapi.json): the body
 * against the schema of the operation's response for that status, and the
 * presence of the headers that response declares as required.
 */

const DOCUMENT_FILE = path.resolve(__dirname, '../../../services/gateway/src/openapi/openapi.json');
// The whole document is added to Ajv under this id, so that the `#/components/...`
// references inside every schema resolve against it.
const DOCUMENT_ID = 'https://smsgw.local/openapi.json';

// Keys of an OpenAPI document (and OpenAPI-only schema keywords) that Ajv's strict mode must accept.
const OPENAPI_KEYWORDS = [
  'openapi',
  'info',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
  'jsonSchemaDialect',
  'externalDocs',
  'example',
  'discriminator',
  'xml',
];

// The error responses of components.responses by status, for answers no operation documents.
const ERROR_RESPONSE_BY_STATUS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'PayloadTooLarge',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: unknown;
}

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}

interface Operation {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}

// Operations under the method names, and other keys (parameters, summary...) beside them.
type PathItem = Record<string, unknown>;

interface OpenApiDocument {
  paths: Record<string, PathItem>;
  components?: Record<string, Record<string, unknown>>;
}

interface Route {
  template: string;
  pattern: RegExp;
  parameters: number;
  item: PathItem;
}

interface Loaded {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  routes: Route[];
  validators: Map<string, ValidateFunction>;
}

let loaded: Loaded | undefined;

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

function load(): Loaded {
  if (loaded) return loaded;
  const doc = JSON.parse(fs.readFileSync(DOCUMENT_FILE, 'utf8')) as OpenApiDocument;
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
  // A concrete path wins over a templated one (`/v1/sms/history` before `/v1/sms/{message_id}`).
  const routes = Object.entries(doc.paths)
    .map(([template, item]) => {
      const parameters = (template.match(/\{[^}]+\}/g) ?? []).length;
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return { template, pattern: new RegExp(`^${source}$`), parameters, item };
    })
    .sort((a, b) => a.parameters - b.parameters);
  loaded = { doc, ajv, routes, validators: new Map() };
  return loaded;
}

/** The value at a local JSON pointer (`#/components/...`) of the document. */
function resolvePointer(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported, not ${ref}`);
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/').map(unescapePointer)) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (node === undefined) throw new Error(`unresolved reference ${ref}`);
  return node;
}

/** Follows `$ref`s to the object they name, with the pointer of that object. */
function deref<T extends { $ref?: string }>(doc: OpenApiDocument, value: T, pointer: string): { value: T; pointer: string } {
  let current = value;
  let at = pointer;
  for (let hops = 0; current.$ref !== undefined; hops++) {
    if (hops > 10) throw new Error(`reference loop at ${at}`);
    at = current.$ref;
    current = resolvePointer(doc, current.$ref) as T;
  }
  return { value: current, pointer: at };
}

function validatorAt(state: Loaded, pointer: string): ValidateFunction {
  let validate = state.validators.get(pointer);
  if (!validate) {
    validate = state.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    state.validators.set(pointer, validate);
  }
  return validate;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const params = Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
    return `body${e.instancePath || ''}: ${e.message ?? 'is invalid'}${params} (schema ${e.schemaPath})`;
  });
}

function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined || value === null) continue;
    const values: unknown[] = Array.isArray(value) ? value : [value];
    return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  }
  return undefined;
}

function truncate(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

/** The problems of one response (body and headers) against the response object at `pointer`. */
function checkResponse(
  state: Loaded,
  response: ResponseObject,
  pointer: string,
  headers: Record<string, unknown>,
  body: unknown,
): string[] {
  const { value, pointer: at } = deref(state.doc, response, pointer);
  const problems: string[] = [];
  const content = value.content ?? {};
  const mediaType = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
  if (mediaType !== undefined && content[mediaType]?.schema !== undefined) {
    const validate = validatorAt(state, `${at}/content/${escapePointer(mediaType)}/schema`);
    if (!validate(body)) problems.push(...describeErrors(validate.errors));
  }
  for (const [name, declared] of Object.entries(value.headers ?? {})) {
    const { value: header, pointer: headerAt } = deref(state.doc, declared, `${at}/headers/${escapePointer(name)}`);
    const actual = headerValue(headers, name);
    if (actual === undefined) {
      if (header.required) problems.push(`header ${name} is required but absent`);
      continue;
    }
    if (header.schema !== undefined) {
      const validate = validatorAt(state, `${headerAt}/schema`);
      if (!validate(actual))
        problems.push(`header ${name}: ${JSON.stringify(actual)} ${validate.errors?.map((e) => e.message).join(', ') ?? 'is invalid'}`);
    }
  }
  return problems;
}

/**
 * Throws when `body` and `headers` are not what the OpenAPI document says
 * `method url` answers with `status`. A path the document does not know
 * must answer an error in the envelope (404 NOT_FOUND, 405 ...).
 */
export function assertMatchesOpenApi(method: string, url: string, status: number, headers: Record<string, unknown>, body: unknown): void {
  const state = load();
  const verb = method.toLowerCase();
  // The gateway's router is not strict about one trailing slash.
  const pathname = new URL(url, 'https://localhost').pathname.replace(/(.)\/$/, '$1');
  const candidates = state.routes.filter((r) => r.pattern.test(pathname));
  const route = candidates.find((r) => HTTP_METHODS.includes(verb) && r.item[verb] !== undefined);

  let where: string;
  let problems: string[];
  if (route) {
    const operation = route.item[verb] as Operation;
    const responses = operation.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    where = `${method.toUpperCase()} ${route.template} (${operation.operationId ?? 'no operationId'})`;
    const base = `#/paths/${escapePointer(route.template)}/${verb}/responses`;
    problems =
      key === undefined
        ? [`status ${status} is not documented`]
        : checkResponse(state, responses[key]!, `${base}/${escapePointer(key)}`, headers, body);
  } else {
    where = `${method.toUpperCase()} ${pathname} (no documented operation${
      candidates.length > 0
        ? `; the path takes ${candidates
            .map((c) =>
              Object.keys(c.item)
                .filter((k) => HTTP_METHODS.includes(k))
                .join(', ')
                .toUpperCase(),
            )
            .join(', ')}`
        : ''
    })`;
    if ((verb === 'head' || verb === 'options') && status < 400) {
      // HEAD and OPTIONS answers have no body; only the request id is promised.
      problems = headerValue(headers, 'X-Request-ID') === undefined ? ['header X-Request-ID is required but absent'] : [];
    } else {
      const name = ERROR_RESPONSE_BY_STATUS[status];
      problems =
        name === undefined
          ? [`status ${status} is not an error the document describes for unknown routes`]
          : checkResponse(state, { $ref: `#/components/responses/${name}` }, `#/components/responses/${name}`, headers, body);
    }
  }

  if (problems.length > 0) {
    throw new Error(
      [
        `OpenAPI mismatch: ${where} answered ${status}`,
        ...problems.map((p) => `  - ${p}`),
        `  body: ${truncate(JSON.stringify(body) ?? String(body))}`,
      ].join('\n'),
    );
  }
}
