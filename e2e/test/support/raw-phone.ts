import https from 'node:https';
import WebSocket from 'ws';
import { eventually } from './http';

/** A frame of android-agent/PROTOCOL.md, either way. */
export interface Frame {
  type: string;
  message_id?: string;
  status?: string;
  [field: string]: unknown;
}

/** Pairs a device with its password, as a phone does (PROTOCOL.md §1), and returns its device token. */
export function pair(hubUrl: string, ca: string, clientId: string, devicePassword: string): Promise<string> {
  const text = JSON.stringify({ client_id: clientId, device_password: devicePassword });
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/v1/agent/pair', hubUrl),
      { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { device_token?: string };
          if (res.statusCode === 200 && body.device_token) resolve(body.device_token);
          else reject(new Error(`pairing answered ${res.statusCode}`));
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

export interface RawPhone {
  ws: WebSocket;
  /** Sends one frame as JSON text. */
  send: (frame: Frame) => void;
  /** The next frame of that type the hub sent (and takes it off the list), within 10 s. */
  next: (type: string) => Promise<Frame>;
  /** Every frame of that type received and not yet taken by `next`. */
  waiting: (type: string) => Frame[];
  /** Closes the connection and waits until it is closed. */
  close: () => Promise<void>;
}

/** A phone that speaks PROTOCOL.md by hand over a real WebSocket with its device token: it can say anything. */
export async function rawPhone(hubUrl: string, ca: string, token: string): Promise<RawPhone> {
  const ws = new WebSocket(`${hubUrl.replace('https', 'wss')}/v1/agent`, 'smsgw.agent.v1', {
    ca,
    headers: { authorization: `Bearer ${token}` },
  });
  const frames: Frame[] = [];
  ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as Frame));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = (type: string) =>
    eventually(
      async () => {
        const i = frames.findIndex((f) => f.type === type);
        return i < 0 ? undefined : frames.splice(i, 1)[0];
      },
      10_000,
      `a ${type} frame`,
    );
  const close = () =>
    new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      ws.once('close', () => resolve());
      ws.close();
    });
  return {
    ws,
    send: (frame) => ws.send(JSON.stringify(frame)),
    next,
    waiting: (type) => frames.filter((f) => f.type === type),
    close,
  };
}
