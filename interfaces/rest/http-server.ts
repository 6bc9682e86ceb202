import type { Express } from 'express';
import type { AddressInfo } from 'node:net';

export interface RunningHttpServer {
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish, then cuts whatever is left after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

export const listen = (app: Express, port: number, host: string): Promise<RunningHttpServer> =>
  new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
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
