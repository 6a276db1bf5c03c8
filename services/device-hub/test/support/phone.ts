import WebSocket from 'ws';

export interface Frame {
  type: string;
  message_id?: string;
  text?: string;
  status?: string;
  [field: string]: unknown;
}

/** A phone connection that records what the hub sends it. */
export class Phone {
  readonly frames: Frame[] = [];
  closeCode?: number;
  private readonly waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString('utf8')) as Frame);
      this.waiters.splice(0).forEach((w) => w());
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.waiters.splice(0).forEach((w) => w());
    });
  }

  static connect(hubUrl: string, caPem: string, token: string, options: { answerPings?: boolean } = {}): Promise<Phone> {
    const ws = new WebSocket(`${hubUrl.replace('https', 'wss')}/v1/agent`, 'smsgw.agent.v1', {
      ca: caPem,
      headers: { authorization: `Bearer ${token}` },
      autoPong: options.answerPings ?? true,
    });
    const phone = new Phone(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(phone));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    });
  }

  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }

  async next(type: string, timeoutMs = 10_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find((f) => f.type === type);
      if (found) {
        this.frames.splice(this.frames.indexOf(found), 1);
        return found;
      }
      if (Date.now() > deadline)
        throw new Error(`no ${type} frame within ${timeoutMs} ms (got ${this.frames.map((f) => f.type).join(', ')})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async closed(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === undefined) {
      if (Date.now() > deadline) throw new Error('the connection stayed open');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.closeCode;
  }
}
