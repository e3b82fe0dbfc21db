// Import boundaries (issue 18): the parsers stand on their own floor — src/formats imports
// nothing from the service around it — and no module takes part in an import cycle.
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
      comment: 'Parsers get what they need (writer, limits, engines) from src/formats/kit or as arguments; the service imports formats, never the other way.',
      from: { path: '^src/formats/' },
      to: { path: '^src/(?!formats/|engines/)' },
    },
    {
      name: 'engines-stand-alone',
      severity: 'error',
      comment: 'Engine discovery is used by the parsers: it must not reach into the service either.',
      from: { path: '^src/engines/' },
      to: { path: '^src/(?!engines/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
