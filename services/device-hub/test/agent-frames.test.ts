import { isMessageId } from '../src/sessions/agent-frames';

describe("isMessageId (an ack's or a report's message_id)", () => {
  it('when the id is msg_ and a ULID, then the frame is read', () => {
    expect(isMessageId('msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E')).toBe(true);
  });

  it('when the id holds U+0000, is cut short, too long, lower case, or not a string, then the frame is dropped before any call', () => {
    for (const id of [
      'msg_\u0000',
      'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3\u0000',
      'msg_',
      'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3',
      'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3EE',
    ])
      expect({ id, read: isMessageId(id) }).toEqual({ id, read: false });
    for (const id of [
      'msg_01jd3z8q6v5n4w2k9t7r1b0c3e',
      'MSG_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
      `msg_${'0'.repeat(40_000)}`,
      42,
      null,
      ['msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E'],
    ])
      expect(isMessageId(id)).toBe(false);
  });
});
