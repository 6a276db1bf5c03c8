import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { ERROR_CATALOG } from '@smsgw/platform';
import { requestIdFrom } from './middleware/request-id';

const TLS_HANDSHAKE = 0x16;

/** Answers any plain-HTTP request with 403 HTTPS_REQUIRED in the error envelope. */
function refusePlainHttp(req: http.IncomingMessage, res: http.ServerResponse): void {
  const { http: status, message } = ERROR_CATALOG.HTTPS_REQUIRED;
  const body = JSON.stringify({ success: false, error: { code: 'HTTPS_REQUIRED', message } });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestIdFrom(req.headers['x-request-id']),
    connection: 'close',
  });
  res.end(body);
}

/**
 * One port for both: a connection whose first byte opens a TLS handshake is
 * served over HTTPS, anything else is plain HTTP and gets a clear 403 rather
 * than a dropped connection.
 */
export function createHttpsOnlyServer(handler: http.RequestListener, tls: { certFile: string; keyFile: string }): net.Server {
  const secure = https.createServer({ cert: fs.readFileSync(tls.certFile), key: fs.readFileSync(tls.keyFile) }, handler);
  const plain = http.createServer(refusePlainHttp);
  secure.keepAliveTimeout = 65_000;
  return net.createServer({ pauseOnConnect: true }, (socket) => {
    socket.once('readable', () => {
      const first = socket.read(1) as Buffer | null;
      if (!first) {
        socket.destroy();
        return;
      }
      socket.unshift(first);
      (first[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
    });
  });
}
