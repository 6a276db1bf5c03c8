import path from 'node:path';
import { headerValue, OpenApi, openApiMismatch } from '@smsgw/testing';

/**
 * Checks the answers the end-to-end suite receives against the gateway's
 * OpenAPI document (services/gateway/src/openapi/openapi.json): the body
 * against the schema of the operation's response for that status, and the
 * presence of the headers that response declares as required.
 */

const DOCUMENT_FILE = path.resolve(__dirname, '../../../services/gateway/src/openapi/openapi.json');

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

let loaded: OpenApi | undefined;

/**
 * Throws when `body` and `headers` are not what the OpenAPI document says
 * `method url` answers with `status`. A path the document does not know
 * must answer an error in the envelope (404 NOT_FOUND, 405 ...).
 */
export function assertMatchesOpenApi(method: string, url: string, status: number, headers: Record<string, unknown>, body: unknown): void {
  const api = (loaded ??= OpenApi.fromFile(DOCUMENT_FILE));
  const match = api.operationFor(method, url);
  let where: string;
  let problems: string[];
  if (match.found) {
    where = `${method.toUpperCase()} ${match.found.template} (${match.found.operation.operationId ?? 'no operationId'})`;
    problems = api.operationProblems(match.found, status, headers, body);
  } else {
    where = `${method.toUpperCase()} ${match.pathname} (no documented operation${
      match.otherMethods.length > 0 ? `; the path takes ${match.otherMethods.join(', ')}` : ''
    })`;
    const verb = method.toLowerCase();
    if ((verb === 'head' || verb === 'options') && status < 400) {
      // HEAD and OPTIONS answers have no body; only the request id is promised.
      problems = headerValue(headers, 'X-Request-ID') === undefined ? ['header X-Request-ID is required but absent'] : [];
    } else {
      const name = ERROR_RESPONSE_BY_STATUS[status];
      problems =
        name === undefined
          ? [`status ${status} is not an error the document describes for unknown routes`]
          : api.responseProblems(`#/components/responses/${name}`, headers, body);
    }
  }
  if (problems.length > 0) throw openApiMismatch(where, status, problems, body);
}
