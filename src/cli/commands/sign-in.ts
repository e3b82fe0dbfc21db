// `docparse admin sign-in-link`: a new one-time dashboard sign-in link for the operator at
// this machine — how the first operator gets in where nobody saw the link a node prints at
// start (a container, a service manager). Only the loopback listener gives one: the node
// holding the data dir, or the CLI's own when no node runs (the link then works once one does).
import type { AdminCommand } from '../command-table.js';
import { emit } from '../command-output.js';
import { ManageApiError } from '../manage-client.js';
import { LINK_TTL_MS } from '../../dashboard/auth/local-operator.js';

const MINUTES = LINK_TTL_MS / 60_000;

export const signInLink: AdminCommand = {
  name: 'sign-in-link',
  usage: 'sign-in-link',
  summary: `a new one-time dashboard sign-in link for the operator at this machine (${MINUTES} minutes, one use)`,
  options: {},
  positionals: 0,
  async run(ctx) {
    let url: string;
    try {
      url = await ctx.api.signInLink();
    } catch (err) {
      if (err instanceof ManageApiError && err.status === 404) {
        throw new Error('sign-in links are given only on the machine that holds the data dir: run docparse admin sign-in-link there, without --url', {
          cause: err,
        });
      }
      throw err;
    }
    emit(ctx, { url, expiresInSeconds: LINK_TTL_MS / 1000 }, [
      `Open this link in a browser within ${MINUTES} minutes to sign in to the dashboard as the operator (it works once):`,
      '',
      `  ${url}`,
    ]);
  },
};
