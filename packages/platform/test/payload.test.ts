import { decodeJsonPayload } from '../src/payload';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('decodeJsonPayload', () => {
  it('when the bytes are a JSON object, then its fields come back unchecked', () => {
    expect(decodeJsonPayload<{ a: number }>(bytes('{"a":1,"b":"x"}'))).toEqual({ a: 1, b: 'x' });
  });

  it('when the bytes are not JSON, or JSON but no object, then nothing comes back', () => {
    for (const text of ['', 'not json', 'null', '42', '"text"', '[1,2]']) expect(decodeJsonPayload(bytes(text))).toBeUndefined();
  });
});
