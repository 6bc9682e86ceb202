import { serve } from './serve.js';

/** npm start: everything in one process, the API and a render worker. */
await serve({ rendering: 'worker' });
