// Fixture apps for deployments: tiny busybox images with httpd, one CGI script that echoes an
// environment variable, and variations that fail in the ways the tests need.

/** A web app answering `text` on / and the value of $GREETING on /cgi-bin/env, on $PORT. */
export function webApp(text: string, extraRun: string[] = []): Record<string, string> {
  return {
    Dockerfile: [
      'FROM berth-test/busybox:latest',
      'COPY www /www',
      'RUN echo "build step: preparing the site"',
      ...extraRun.map((r) => `RUN ${r}`),
      'CMD ["sh", "-c", "exec httpd -f -v -p ${PORT} -h /www"]',
      '',
    ].join('\n'),
    'www/index.html': `${text}\n`,
    'www/cgi-bin/env#x': '#!/bin/sh\necho "Content-Type: text/plain"\necho\necho "greeting=$GREETING"\n',
  };
}

/** Builds fine, runs, never listens. */
export function silentApp(): Record<string, string> {
  return { Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sleep", "3600"]\n' };
}

/** A build that takes a long time in one step, printing as it goes. */
export function slowBuildApp(seconds: number): Record<string, string> {
  const app = webApp('slow');
  app.Dockerfile = app.Dockerfile!.replace('RUN echo "build step: preparing the site"', `RUN echo "build step: slow start" && for i in $(seq 1 ${seconds}); do echo "tick $i"; sleep 1; done`);
  return app;
}
