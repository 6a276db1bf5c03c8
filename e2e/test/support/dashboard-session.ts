import https from 'node:https';

export interface DashboardPage {
  status: number;
  location: string;
  text: string;
  /** How long the answer took, in ms. */
  ms: number;
}

/**
 * A browser's session with the dashboard, over real HTTPS: its cookies, and the CSRF token of the
 * last page read, posted with each form as the pages' own forms post it.
 */
export class DashboardSession {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(
    private readonly base: string,
    private readonly ca: string,
  ) {}

  /** Signs in with the sign-in form; the answer of the POST. */
  async signIn(email: string, password: string): Promise<DashboardPage> {
    await this.get('/signin');
    return this.post('/signin', { email, password });
  }

  get(path: string): Promise<DashboardPage> {
    return this.request('GET', path);
  }

  /** Posts `fields` (urlencoded) with the CSRF token of the last page read. */
  post(path: string, fields: Record<string, string>): Promise<DashboardPage> {
    return this.request('POST', path, new URLSearchParams({ _csrf: this.csrf, ...fields }).toString());
  }

  private request(method: string, path: string, body?: string): Promise<DashboardPage> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${this.base}${path}`,
        {
          method,
          ca: this.ca,
          agent: false,
          headers: {
            cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(body === undefined
              ? {}
              : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) }),
          },
        },
        (res) => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair] = line.split(';');
            const at = pair!.indexOf('=');
            const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
            if (value) this.cookies.set(name, value);
            else this.cookies.delete(name);
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            const token = /name="_csrf" value="([^"]+)"/.exec(text);
            if (token) this.csrf = token[1]!;
            resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? ''), text, ms: performance.now() - started });
          });
          res.on('error', reject);
        },
      );
      // A server that answers before reading the whole body may close the connection under it.
      req.on('error', reject);
      req.end(body);
    });
  }
}
