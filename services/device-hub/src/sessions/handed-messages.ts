/**
 * The messages one session handed to its phone, newest last, at most `limit`:
 * a report on one of them needs no question to the message service. The last
 * hundred cover a busy phone's last minutes, when its reports come; a report
 * on an older one (a delivery report hours late) asks the message service
 * (`deviceOwnsMessage`). A phone's session holds at most about 8 kB of them.
 */
export class HandedMessages {
  /** Made at the first message: an idle phone's session holds none. */
  private ids?: Set<string>;

  constructor(private readonly limit = 100) {}

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
