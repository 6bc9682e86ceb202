import { v7 as uuidv7 } from 'uuid';
import type { Clock, IdGenerator } from '../../application/ports/clock.js';

export const systemClock: Clock = { now: () => new Date() };

export const uuidV7Ids: IdGenerator = { next: () => uuidv7() };
