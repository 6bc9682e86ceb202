import type { Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorBody } from '../http/error-mapping.js';

export interface RunningHttpServer {
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish, then cuts whatever is left after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/** What Node's parser refuses before express sees a request, said in the spec's error shape. */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; problem: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', problem: 'request: the URL and headers are larger than the server accepts' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Payload Too Large', problem: 'body: chunk extensions too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', problem: 'request: not received in time' },
};

/**
 * Node answers requests its parser refuses (an over-long URL or header, a malformed request line)
 * itself, with an empty body; this answers them as every other error is answered.
 */
const answerClientErrors = (server: Server) => {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Node's own condition: nothing is written to a socket that is gone or already mid-answer.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || answering) return void socket.destroy();
    const { status, reason, problem } = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, reason: 'Bad Request', problem: 'request: not a well-formed HTTP request' };
    const body = JSON.stringify(errorBody(status, reason, [problem]));
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
};

/**
 * How long an idle kept-alive connection stays open. Node's 5 s default races clients that reuse a
 * connection near its end: a request written just before the server's timer fires (late, on a busy
 * event loop) meets a closed socket and fails without an answer. Clients and proxies keep idle
 * connections for less than this (60 s at most for common load balancers), so the client closes first.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export const listen = (app: Express, port: number, host: string): Promise<RunningHttpServer> =>
  new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      // Above the idle timeout, so a connection's next request is never cut by the headers' own timer.
      server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
      answerClientErrors(server);
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        close: (timeoutMs) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
