// The parsers' settings a test runs them with: the defaults config.ts applies, the engines
// where this machine has them (found through the test runner's PATH, TESSDATA_PREFIX and, if
// set, DOCPARSE_SOFFICE / DOCPARSE_TESSDATA_DIR, as a node started here would), and what the
// test changes. Tests configure a parser through these arguments, never the environment.
import { loadConfig } from '../../src/config.js';
import type { ParserSettings } from '../../src/formats/settings.js';

export type SettingsOverrides = { [K in keyof ParserSettings]?: Partial<ParserSettings[K]> };

const ENGINE_VARIABLES = ['PATH', 'TESSDATA_PREFIX', 'DOCPARSE_SOFFICE', 'DOCPARSE_TESSDATA_DIR'];

const machine: ParserSettings = loadConfig(Object.fromEntries(ENGINE_VARIABLES.map((n) => [n, process.env[n]]))).parsers;

export function parserSettings(over: SettingsOverrides = {}): ParserSettings {
  const merged = { ...machine } as Record<string, unknown>;
  for (const [section, values] of Object.entries(over)) merged[section] = { ...(machine as unknown as Record<string, object>)[section], ...values };
  return merged as unknown as ParserSettings;
}
