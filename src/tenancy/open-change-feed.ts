// Chooses the control-plane change feed: shared through Redis when the node has one (a
// cluster), else in-process (the embedded default, where the data dir's lock makes this node
// the control plane's only writer).
import type { JobLogger } from '../jobs/support.js';
import { InProcessChangeFeed, type ChangeFeed } from './change-feed.js';
import { RedisChangeFeed } from './redis-change-feed.js';

export function openChangeFeed(opts: { redisUrl?: string | null; prefix?: string; log?: JobLogger }): ChangeFeed {
  if (!opts.redisUrl) return new InProcessChangeFeed();
  return new RedisChangeFeed({ url: opts.redisUrl, prefix: opts.prefix ?? 'docparse', log: opts.log });
}
