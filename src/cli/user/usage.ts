// The user commands' lines in `docparse --help`, apart so that `docparse serve` does not load
// the SDK and the progress bars to print them.
export type UserCommand = 'parse' | 'status' | 'result' | 'cancel';

/** Each command's usage and what it does, for `docparse --help` and `docparse <command> --help`. */
export const USER_USAGE: Record<UserCommand, [string, string]> = {
  parse: ['docparse parse <files or globs…> [--out DIR] [--json] …', 'parse files: one JSON result each in --out, a summary'],
  status: ['docparse status <documentId…> [--json]', "jobs' states"],
  result: ['docparse result <documentId> [--out FILE]', 'the JSON result of a job'],
  cancel: ['docparse cancel <documentId…> [--json]', "stop jobs (nothing charged), or delete finished jobs' results"],
};
