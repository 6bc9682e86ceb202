import { serve } from './serve.js';

/** npm run api: the HTTP API and projections without Chromium; renders run on `npm run worker` processes. */
await serve({ rendering: 'client' });
