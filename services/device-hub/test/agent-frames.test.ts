import { isMessageId } from '../src/sessions/agent-frames';

describe("isMessageId (an ack's or a report's message_id)", () => {
  it('when the id is msg_ and letters and digits (a ULID, or a test id), then the frame is read', () => {
    for (const id of ['msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E', 'msg_17956224030122', `msg_${'A'.repeat(64)}`]) expect(isMessageId(id)).toBe(true);
  });

  it('when the id holds U+0000 or other characters, is empty, too long, not msg_ or not a string, then the frame is dropped before any call', () => {
    for (const id of [
      'msg_\u0000',
      'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3\u0000',
      'msg_',
      'msg_01JD-3Z8Q',
      'msg_été',
      `msg_${'0'.repeat(65)}`,
      `msg_${'0'.repeat(40_000)}`,
      'MSG_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
    ])
      expect({ id, read: isMessageId(id) }).toEqual({ id, read: false });
    for (const id of [42, null, ['msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E']]) expect(isMessageId(id)).toBe(false);
  });
});
