import doc from './openapi.json';

/**
 * The OpenAPI 3.1 description of the public REST API, exactly as the
 * gateway answers it. The end-to-end suite checks every response against it.
 */
export const openApiDocument: Record<string, unknown> = doc;
