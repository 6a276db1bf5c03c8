/**
 * The messages one session handed to its phone, newest last, at most `limit`:
 * a report on one of them needs no question to the message service.
 */
export class HandedMessages {
  /** Made at the first message: an idle phone's session holds none. */
  private ids?: Set<string>;

  constructor(private readonly limit = 1000) {}

  add(messageId: string): void {
    const ids = (this.ids ??= new Set<string>());
    ids.delete(messageId);
    ids.add(messageId);
    if (ids.size > this.limit) ids.delete(ids.values().next().value!);
  }

  has(messageId: string): boolean {
    return this.ids?.has(messageId) ?? false;
  }
}
