import { OpenApi, openApiMismatch, type OpenApiDocument } from '../src';

const doc: OpenApiDocument = {
  paths: {
    '/v1/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            description: 'A thing',
            headers: { 'X-Request-ID': { $ref: '#/components/headers/RequestId' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '4XX': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/v1/things/count': { get: { operationId: 'countThings', responses: { '200': { description: 'n' } } } },
  },
  components: {
    headers: { RequestId: { required: true, schema: { type: 'string', minLength: 3 } } },
    schemas: {
      Thing: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' } } },
    },
    responses: {
      Error: {
        description: 'An error',
        content: { 'application/json': { schema: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } } },
      },
    },
  },
};

describe('OpenApi', () => {
  const api = new OpenApi(doc);

  it('when a path matches a concrete and a templated route, then the concrete one answers; a trailing slash is ignored', () => {
    const count = api.operationFor('GET', '/v1/things/count/');
    const thing = api.operationFor('get', 'https://localhost/v1/things/42?x=1');

    expect(count.found?.operation.operationId).toBe('countThings');
    expect(thing.found).toMatchObject({ template: '/v1/things/{id}', pointer: '#/paths/~1v1~1things~1{id}/get' });
  });

  it('when no operation takes the method, then the match says which methods the path takes', () => {
    expect(api.operationFor('DELETE', '/v1/things/42')).toEqual({ found: undefined, pathname: '/v1/things/42', otherMethods: ['GET'] });
    expect(api.operationFor('GET', '/nowhere')).toEqual({ found: undefined, pathname: '/nowhere', otherMethods: [] });
  });

  it('when an answer matches its response, then there is no problem; when its body, a header or its status does not, then each is named', () => {
    const op = api.operationFor('GET', '/v1/things/1').found!;

    expect(api.operationProblems(op, 200, { 'x-request-id': 'req_1' }, { id: '1' })).toEqual([]);
    expect(api.operationProblems(op, 200, {}, { id: '1', extra: true })).toEqual([
      expect.stringContaining('must NOT have additional properties'),
      'header X-Request-ID is required but absent',
    ]);
    expect(api.operationProblems(op, 200, { 'X-Request-ID': 'r' }, { id: '1' })).toEqual([
      expect.stringContaining('header X-Request-ID: "r"'),
    ]);
    expect(api.operationProblems(op, 404, {}, { code: 'NOT_FOUND' })).toEqual([]);
    expect(api.operationProblems(op, 500, {}, {})).toEqual(['status 500 is not documented']);
  });

  it('when a reference leads nowhere, then resolving it fails naming it', () => {
    expect(() => api.resolve('#/components/schemas/Nothing')).toThrow('unresolved reference #/components/schemas/Nothing');
    expect(() => api.resolve('other.json#/x')).toThrow('only local references');
  });

  it('when a mismatch is reported, then the error says where, each problem and the body', () => {
    expect(openApiMismatch('GET /x (getX)', 200, ['a', 'b'], { id: 1 }).message).toBe(
      'OpenAPI mismatch: GET /x (getX) answered 200\n  - a\n  - b\n  body: {"id":1}',
    );
  });
});
