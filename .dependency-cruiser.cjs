// Import boundaries (issue 18). The floors, bottom up:
//   src/errors/catalogue.ts   the problem and job-failure codes (imports nothing)
//   src/formats/              the parsers, their kit (src/formats/kit: writer, engine handles,
//                             the parser contract, options), detection and the family registry
//   src/engines/              the service's view of the engines: inventory, what each is for,
//                             the upload refusal (above formats: it reads the families' needs and
//                             the engine loaders' locations)
//   everything else           the service (pipeline, api, http, jobs …), which imports formats
// An arrow may only point down, and no module takes part in an import cycle.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes load order matter and the modules impossible to take apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'formats-stand-alone',
      severity: 'error',
      comment:
        'Parsers get what they need from src/formats/kit or as arguments (ParseInput: settings, units, embedded parsers); only the error catalogue lies below them. The service imports formats, never the other way.',
      from: { path: '^src/formats/' },
      to: { path: '^src/', pathNot: '^src/(formats/|errors/catalogue\\.ts$)' },
    },
    {
      name: 'errors-catalogue-at-the-bottom',
      severity: 'error',
      comment: 'The catalogue is read by every floor, so it imports nothing of the service.',
      from: { path: '^src/errors/catalogue\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'engines-above-formats-only',
      severity: 'error',
      comment:
        "Engine discovery reads the families' declarations and the engine loaders; it answers uploads with the catalogue's problems, and reaches no further into the service.",
      from: { path: '^src/engines/' },
      to: { path: '^src/', pathNot: '^src/(engines/|formats/|errors/catalogue\\.ts$|http/problem\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
