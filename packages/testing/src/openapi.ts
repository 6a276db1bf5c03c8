import fs from 'node:fs';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * An OpenAPI 3.1 document loaded for checking answers against it: the body
 * against the schema of an operation's response for a status, and the
 * headers that response declares.
 */

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

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: unknown;
}

export interface ResponseObject {
  $ref?: string;
  description?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}

export interface OperationObject {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}

// Operations under the method names, and other keys (parameters, summary...) beside them.
export type PathItem = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, PathItem>;
  components?: Record<string, Record<string, unknown>>;
}

/** A documented operation: `#/paths/<template>/<method>` is `pointer`. */
export interface OperationAt {
  method: string;
  template: string;
  pointer: string;
  operation: OperationObject;
}

/** What `operationFor` found for a request: the operation, or (none documented) the methods its path takes. */
export type OperationMatch = { found: OperationAt } | { found: undefined; pathname: string; otherMethods: string[] };

export const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

/** A header's value, whatever the case of its name; several values joined with `, `. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined || value === null) continue;
    const values: unknown[] = Array.isArray(value) ? value : [value];
    return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  }
  return undefined;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const params = Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
    return `body${e.instancePath || ''}: ${e.message ?? 'is invalid'}${params} (schema ${e.schemaPath})`;
  });
}

const truncate = (text: string, max = 2000) => (text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text);

export class OpenApi {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: { template: string; pattern: RegExp; item: PathItem }[];

  constructor(readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    this.ajv.addVocabulary(OPENAPI_KEYWORDS);
    addFormats(this.ajv);
    this.ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
    // A concrete path wins over a templated one (`/v1/sms/history` before `/v1/sms/{message_id}`).
    this.routes = Object.entries(doc.paths)
      .map(([template, item]) => {
        const parameters = (template.match(/\{[^}]+\}/g) ?? []).length;
        const source = template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('');
        return { template, pattern: new RegExp(`^${source}$`), parameters, item };
      })
      .sort((a, b) => a.parameters - b.parameters);
  }

  /** The document in `file` (JSON). */
  static fromFile(file: string): OpenApi {
    return new OpenApi(JSON.parse(fs.readFileSync(file, 'utf8')) as OpenApiDocument);
  }

  /** The value at a local JSON pointer (`#/components/...`) of the document. */
  resolve(ref: string): unknown {
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported, not ${ref}`);
    let node: unknown = this.doc;
    for (const part of ref.slice(2).split('/').map(unescapePointer)) {
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    }
    if (node === undefined) throw new Error(`unresolved reference ${ref}`);
    return node;
  }

  /** Follows `$ref`s to the object they name, with the pointer of that object. */
  deref<T extends { $ref?: string }>(value: T, pointer: string): { value: T; pointer: string } {
    let current = value;
    let at = pointer;
    for (let hops = 0; current.$ref !== undefined; hops++) {
      if (hops > 10) throw new Error(`reference loop at ${at}`);
      at = current.$ref;
      current = this.resolve(current.$ref) as T;
    }
    return { value: current, pointer: at };
  }

  /** The compiled schema at `pointer` (compiled once). */
  validatorAt(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** Every documented operation, in the document's order. */
  operations(): OperationAt[] {
    return Object.entries(this.doc.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => ({
          method,
          template,
          pointer: `#/paths/${escapePointer(template)}/${method}`,
          operation: operation as OperationObject,
        })),
    );
  }

  /** The operation that answers `method url`; a trailing slash is ignored, as the gateway's router does. */
  operationFor(method: string, url: string): OperationMatch {
    const verb = method.toLowerCase();
    const pathname = new URL(url, 'https://localhost').pathname.replace(/(.)\/$/, '$1');
    const candidates = this.routes.filter((r) => r.pattern.test(pathname));
    const route = candidates.find((r) => HTTP_METHODS.includes(verb) && r.item[verb] !== undefined);
    if (route) {
      const pointer = `#/paths/${escapePointer(route.template)}/${verb}`;
      return { found: { method: verb, template: route.template, pointer, operation: route.item[verb] as OperationObject } };
    }
    return {
      found: undefined,
      pathname,
      otherMethods: candidates.map((c) =>
        Object.keys(c.item)
          .filter((k) => HTTP_METHODS.includes(k))
          .join(', ')
          .toUpperCase(),
      ),
    };
  }

  /** The problems of one answer (body and headers) against the response object at `pointer`; empty when it conforms. */
  responseProblems(pointer: string, headers: Record<string, unknown>, body: unknown): string[] {
    const { value, pointer: at } = this.deref(this.resolve(pointer) as ResponseObject, pointer);
    const problems: string[] = [];
    const content = value.content ?? {};
    const mediaType = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
    if (mediaType !== undefined && content[mediaType]?.schema !== undefined) {
      const validate = this.validatorAt(`${at}/content/${escapePointer(mediaType)}/schema`);
      if (!validate(body)) problems.push(...describeErrors(validate.errors));
    }
    for (const [name, declared] of Object.entries(value.headers ?? {})) {
      const { value: header, pointer: headerAt } = this.deref(declared, `${at}/headers/${escapePointer(name)}`);
      const actual = headerValue(headers, name);
      if (actual === undefined) {
        if (header.required) problems.push(`header ${name} is required but absent`);
        continue;
      }
      if (header.schema !== undefined) {
        const validate = this.validatorAt(`${headerAt}/schema`);
        if (!validate(actual))
          problems.push(`header ${name}: ${JSON.stringify(actual)} ${validate.errors?.map((e) => e.message).join(', ') ?? 'is invalid'}`);
      }
    }
    return problems;
  }

  /**
   * The problems of `status` with `headers` and `body` as the answer of a
   * documented operation: the response for that status, its class (`4XX`)
   * or `default`.
   */
  operationProblems(operation: OperationAt, status: number, headers: Record<string, unknown>, body: unknown): string[] {
    const responses = operation.operation.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (key === undefined) return [`status ${status} is not documented`];
    return this.responseProblems(`${operation.pointer}/responses/${escapePointer(key)}`, headers, body);
  }
}

/** The error thrown for an answer that does not match: where, what, and the body (cut at 2,000 characters). */
export function openApiMismatch(where: string, status: number, problems: string[], body: unknown): Error {
  return new Error(
    [
      `OpenAPI mismatch: ${where} answered ${status}`,
      ...problems.map((p) => `  - ${p}`),
      `  body: ${truncate(JSON.stringify(body) ?? String(body))}`,
    ].join('\n'),
  );
}
