import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_CATALOG, newId, type ErrorCode } from '@smsgw/platform';
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

// What Node's HTTP parser reports, as the error the caller reads; anything
// else it refuses (bad chunked encoding, bad header, bad method...) is 400.
const PARSER_ERRORS: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'PAYLOAD_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * Node's `clientError`: the request could not be parsed (or its body could
 * not, after a handler already ran). Answers in the error envelope (with a
 * request id of its own) and closes the connection, as Node itself would
 * with an empty 400, when the socket can still carry an answer. When a
 * response has already been written whole, it is let out before the
 * connection closes (Node would cut it off); one written in part is cut off.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const response = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (response?.headersSent) {
    if (response.writableEnded) socket.end();
    else socket.destroy();
    return;
  }
  const code = PARSER_ERRORS[err.code ?? ''] ?? 'MALFORMED_REQUEST';
  const { http: status, message } = ERROR_CATALOG[code];
  const body = JSON.stringify({ success: false, error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${newId('req')}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
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
  secure.on('clientError', answerClientError);
  plain.on('clientError', answerClientError);
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
