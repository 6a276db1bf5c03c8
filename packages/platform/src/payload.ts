/**
 * The JSON object a message on the bus carries, fields not yet checked: undefined when the bytes
 * are not JSON or not an object. Every consumer's parser starts here, then checks its fields.
 */
export function decodeJsonPayload<T extends object>(bytes: Uint8Array): Partial<T> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
