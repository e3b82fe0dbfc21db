// The scheduling shared by the node's leased outboxes (e-mail, webhook deliveries): one pass at
// a time, a nudge during a pass runs another right after it, a failing pass (the control plane
// away) is logged once per distinct problem and tried again at the next wake-up. What a pass
// claims and does is the outbox's own business.
import type { Logger } from '../log.js';

/** Back-off between attempts of one outbox row. */
export interface RetryPolicy {
  /** Delay after the first failed attempt (ms); doubled after each further one. */
  baseMs: number;
  /** Longest delay between attempts (ms). */
  maxMs: number;
}

/** Delay before the next attempt after `attempts` failed ones, ±20 % so senders and receivers drift apart. */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exp = policy.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30);
  return Math.round(Math.min(policy.maxMs, exp) * (0.8 + 0.4 * random()));
}

export interface PassLoopOptions {
  /** One pass over the outbox; checks `stopped()` between rows. */
  pass(stopped: () => boolean): Promise<void>;
  /** How long to sleep after a pass (ms), e.g. until the poll or the earliest retry owed. */
  nextWakeMs(): number;
  logger: Logger;
  /** What the log says when a pass fails, e.g. 'mail outbox pass failed; retrying'. */
  failure: string;
}

export interface PassLoop {
  /** Runs a pass now (right after the one under way, if any). */
  nudge(): void;
  /** Lets the pass under way finish, then runs no more. */
  stop(): Promise<void>;
}

/** Starts passes at once and then whenever `nextWakeMs` or a nudge says. */
export function startPassLoop(o: PassLoopOptions): PassLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let lastProblem = '';
  const isStopped = () => stopped;

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  }

  function run(): void {
    timer = null;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = o
      .pass(isStopped)
      .then(
        () => {
          lastProblem = '';
        },
        (err: unknown) => {
          const problem = (err as Error).message;
          if (problem !== lastProblem) o.logger.warn({ err: problem }, o.failure);
          lastProblem = problem;
        },
      )
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          schedule(0);
        } else schedule(o.nextWakeMs());
      });
  }

  schedule(0);

  return {
    nudge() {
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
