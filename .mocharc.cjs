// `npm test`: every compiled suite. Files named on the command line (`npm test -- dist/test/x.test.js`)
// run alone: mocha adds command-line files to a config's `spec` instead of replacing it, so the
// whole suite ran whenever one file was named.
const named = process.argv.slice(2).some((a) => !a.startsWith('-') && a.endsWith('.js'));
module.exports = {
  ...(named ? {} : { spec: ['dist/test/**/*.test.js'] }),
  reporter: 'test/summary-reporter.cjs',
  timeout: 20000,
  exit: true,
};
