import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestHandler } from 'express';
import type { AppServices } from '../http/app-services.js';
import { errorBody } from '../http/error-mapping.js';
import { contextOf } from '../rest/request-context.js';
import { createMcpServer } from './mcp-server.js';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * MCP clients send credentials as `Authorization: Bearer <key>`; the API key auth reads
 * `x-api-key`. A bearer key becomes that header when the request has none, so the one auth
 * middleware decides (and the log censors both headers).
 */
export const bearerAsApiKey: RequestHandler = (req, _res, next) => {
  const bearer = req.headers['x-api-key'] === undefined ? BEARER.exec(req.headers.authorization ?? '') : null;
  if (bearer?.[1]) req.headers['x-api-key'] = bearer[1];
  next();
};

/**
 * The MCP Streamable HTTP endpoint, stateless: each POST carries one JSON-RPC message and gets its
 * answer as JSON from a server and transport made for it, acting for the caller the auth middleware
 * found. There are no sessions, so no GET event stream and no DELETE.
 */
export const mcpEndpoint = (services: AppServices): RequestHandler => async (req, res) => {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    res.status(405).json(errorBody(405, 'Method not allowed', [`${req.method} /mcp: this MCP server is stateless and takes POST only`]));
    return;
  }
  const server = createMcpServer(services, contextOf(res), req.log);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
};
