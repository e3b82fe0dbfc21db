// The environment soffice runs in: this process's own (PATH, locale, font settings …),
// passed through to the child as it is, with a private HOME (soffice writes caches there) and
// the headless rendering plugin. Forwarded, never read for settings: those come from config.ts.
import os from 'node:os';

export function sofficeEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, HOME: os.tmpdir(), SAL_USE_VCLPLUGIN: 'svp' };
}
