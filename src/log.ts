import { pino, type Logger } from 'pino';

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base, timestamp: pino.stdTimeFunctions.isoTime });
}
export type { Logger };
