// `npm run test:unit`: the suites that need no Docker and start no process of their own: pure
// modules (test/unit), and the in-process daemon over HTTP with its own Caddy (API, access and
// input checks, git limits, S3 against an in-process s3rver). test/run-unit.sh makes Docker
// unreachable for them, so a suite that starts needing it fails here instead of passing slowly.
// Left to `npm test` although they need no Docker, for their time: api/auth-matrix (a fresh
// world per endpoint and key kind), api/daemon-process, cli/accounts and
// delivery/restart-notice (each test starts daemon or CLI processes), and
// security/streams-unknown-keys (20000 requests).
module.exports = {
  spec: [
    'dist/test/unit/**/*.test.js',
    'dist/test/api/**/*.test.js',
    'dist/test/backups/s3-store.test.js',
    'dist/test/dataplane/sync.test.js',
    'dist/test/delivery/notifications.test.js',
    'dist/test/desktop/event-handling.test.js',
    'dist/test/security/build-git.test.js',
    'dist/test/security/build-unit.test.js',
    'dist/test/security/data-dns.test.js',
    'dist/test/security/data-names.test.js',
    'dist/test/security/data-tls-names.test.js',
    'dist/test/security/runtime-keys.test.js',
    'dist/test/security/streams-references.test.js',
  ],
  ignore: ['dist/test/api/auth-matrix.test.js', 'dist/test/api/daemon-process.test.js'],
  reporter: 'test/summary-reporter.cjs',
  timeout: 20000,
  exit: true,
};
