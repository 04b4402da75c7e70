// The mapping rules of a compose service, one by one: what becomes what, what is refused and why
// (never dropped), and the order services are created in.
import { expect } from 'chai';
import { composeParser } from '../../daemon/compose-import/parse.js';
import { planCompose } from '../../daemon/core/compose-plan.js';
import { InvalidInput } from '../../daemon/core/errors.js';
import type { ComposeImportInput, ComposePlan } from '../../shared/types.js';
import { expectEveryKeyAccounted } from '../helpers/compose-coverage.js';

interface Options extends Pick<ComposeImportInput, 'files' | 'plainImages' | 'repository'> {
  env?: string;
  existing?: string[];
}

function plan(text: string, o: Options = {}): ComposePlan {
  const vars = composeParser.parseEnv(o.env ?? '', '.env');
  const parsed = composeParser.parse(text, vars);
  const out = planCompose(parsed.document, {
    files: new Map(Object.entries(o.files ?? {})),
    plainImages: new Set(o.plainImages ?? []),
    repository: o.repository ?? null,
    vars,
    parseEnv: composeParser.parseEnv,
    existingNames: new Set(o.existing ?? []),
    unsetVariables: parsed.unsetVariables,
  });
  expectEveryKeyAccounted(parsed.document, out);
  return out;
}

const one = (body: string, o?: Options) => plan(`services:\n  app:\n${body.replace(/^/gm, '    ')}\n`, o);
const why = (p: ComposePlan, key: string) => p.unsupported.find((u) => u.key === key)?.why ?? '';
const refused = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('compose mapping rules', () => {
  it('an image becomes an image service: a worker without ports, web on its first published port', () => {
    expect(one('image: busybox').services[0]!.berthService!.input).to.include({ repoUrl: 'docker-image', dockerImage: 'busybox', runtimeMode: 'worker', internalPort: null });
    const web = one('image: nginx\nports: ["8080:80", "127.0.0.1:8443:443", "9000:9000/udp"]');
    expect(web.services[0]!.berthService).to.deep.include({ generatedName: true });
    expect(web.services[0]!.berthService!.input).to.include({ runtimeMode: 'web', internalPort: 80 });
    expect(why(web, 'ports[1]')).to.include('one port per service');
    expect(why(web, 'ports[2]')).to.include('TCP');
    expect(one('image: app\nexpose: [3000]').services[0]!.berthService!.input.internalPort).to.equal(3000);
  });

  it('build becomes a git service of the given repository (context, dockerfile), args listed; without a repository it is listed', () => {
    const git = one('build:\n  context: ./api\n  dockerfile: Dockerfile.prod\n  args: { A: 1 }\nimage: mine/api', { repository: { url: 'https://git.example.com/a/b.git', branch: 'dev' } });
    expect(git.services[0]!.becomes).to.equal('git');
    expect(git.services[0]!.berthService!.input).to.include({
      repoUrl: 'https://git.example.com/a/b.git',
      branch: 'dev',
      rootDir: 'api',
      dockerfilePath: 'Dockerfile.prod',
      buildMethod: 'dockerfile',
    });
    expect(why(git, 'build.args')).to.include('ARG');
    expect(why(git, 'image')).to.include('built from the repository');
    const none = one('build: .');
    expect(none.services[0]!.becomes).to.equal('skipped');
    expect(why(none, 'build')).to.include('repository');
    expect(why(one('build: .\nimage: app:1'), 'build')).to.include('pulled');
  });

  it('environment (list or map) and env_file with its content become variables, environment winning', () => {
    const p = one('image: app\nenv_file: [./app.env, ./missing.env]\nenvironment: [A=1, "B=two words"]', { files: { './app.env': 'A=from-file\nC=3\n' } });
    expect(p.services[0]!.berthService!.env).to.deep.equal([
      { key: 'C', value: '3' },
      { key: 'A', value: '1' },
      { key: 'B', value: 'two words' },
    ]);
    expect(why(p, 'env_file[1]')).to.include('./missing.env');
    expect(why(one('image: app\nenvironment: { lower: 1 }'), 'environment.lower')).to.include('upper-case');
  });

  it('known database images become managed databases with their variables, unless kept as plain images', () => {
    const p = plan(
      'services:\n  db:\n    image: mariadb:11\n    environment: { MARIADB_DATABASE: app, MARIADB_PASSWORD: pw }\n  pg:\n    image: postgres:16\n    environment: { POSTGRES_PASSWORD: pw }\n',
    );
    expect(p.services[0]!.becomes).to.equal('database:mysql');
    expect(p.services[0]!.berthService!.input).to.include({ repoFullName: 'database:mysql', repoUrl: 'database' });
    expect(p.services[0]!.berthService!.env).to.deep.equal([
      { key: 'MYSQL_DATABASE', value: 'app' },
      { key: 'MYSQL_PASSWORD', value: 'pw' },
    ]);
    // the official image's defaults where Berth's differ
    expect(p.services[1]!.berthService!.env).to.deep.include({ key: 'POSTGRES_USER', value: 'postgres' });
    expect(plan('services:\n  db:\n    image: postgres:16\n', { plainImages: ['db'] }).services[0]!.becomes).to.equal('image');
  });

  it("a value naming another service's host becomes a reference; the managed database's own URL its variable", () => {
    const p = plan(
      [
        'services:',
        '  web:',
        '    image: app',
        '    container_name: web-1',
        '    environment:',
        '      DATABASE_URL: postgres://u:pw@db:5432/x',
        '      OTHER_URL: mysql://u:pw@db:5432/x',
        '      CACHE: cache:6379',
        '      HOSTS: db,cache',
        '      NOT_A_HOST: database',
        '      DB_USER: db',
        '      LOGIN: u:pw@db',
        '  db:',
        '    image: postgres',
        '    environment: { POSTGRES_USER: u, POSTGRES_PASSWORD: pw, POSTGRES_DB: x }',
        '  cache:',
        '    image: redis',
        '  worker:',
        '    image: img2',
        '    environment: { API: "http://web-1:3000/api" }',
      ].join('\n'),
    );
    expect(p.services[0]!.berthService!.env).to.deep.equal([
      { key: 'DATABASE_URL', value: '${db.DATABASE_URL}' },
      { key: 'OTHER_URL', value: 'mysql://u:pw@${db.PRIVATE_HOST}:5432/x' },
      { key: 'CACHE', value: '${cache.PRIVATE_HOST}:6379' },
      { key: 'HOSTS', value: '${db.PRIVATE_HOST},${cache.PRIVATE_HOST}' },
      { key: 'NOT_A_HOST', value: 'database' },
      // a bare name is a host only in a host key; userinfo is never a host
      { key: 'DB_USER', value: 'db' },
      { key: 'LOGIN', value: 'u:pw@db' },
    ]);
    expect(p.services[3]!.berthService!.env).to.deep.equal([{ key: 'API', value: 'http://${web.PRIVATE_HOST}:3000/api' }]);
  });

  it('named volumes become Berth volumes, anonymous ones named, bind-mounted files with content config files; the rest listed', () => {
    const p = one(
      'image: app\nvolumes: [data:/data:ro, /cache, ./nginx.conf:/etc/nginx/nginx.conf:ro, ./site:/srv, /etc/passwd:/x, /var/run/docker.sock:/var/run/docker.sock, "Bad_Name:/b", "v:/proc/x"]',
      {
        files: { './nginx.conf': 'events {}' },
      },
    );
    const input = p.services[0]!.berthService!.input;
    expect(input.volumes).to.deep.equal([
      { name: 'data', mountPath: '/data', readOnly: true },
      { name: 'app-cache', mountPath: '/cache', readOnly: false },
      { name: 'bad_name', mountPath: '/b', readOnly: false },
    ]);
    expect(input.files).to.deep.equal([{ path: '/etc/nginx/nginx.conf', content: 'events {}' }]);
    expect(why(p, 'volumes[3]')).to.include('content of ./site');
    expect(why(p, 'volumes[4]')).to.include('host path');
    expect(why(p, 'volumes[5]')).to.include('Docker socket');
    expect(why(p, 'volumes[7]')).to.include('/proc');
    expect(p.warnings.join('\n')).to.include('bad_name');
  });

  it('privileged, host namespaces, devices, cap_add, security_opt and sysctls are refused with the security reason', () => {
    const p = one('image: app\nprivileged: true\nnetwork_mode: host\npid: host\nipc: host\ndevices: [/dev/kvm]\ncap_add: [NET_ADMIN]\nsecurity_opt: [seccomp:unconfined]\nsysctls: { a: 1 }');
    for (const key of ['privileged', 'network_mode', 'pid', 'ipc', 'devices', 'cap_add', 'security_opt', 'sysctls']) expect(why(p, key), key).to.not.equal('');
    expect(p.services[0]!.mapped).to.deep.equal(['image']);
    expect(why(p, 'privileged')).to.include('never');
  });

  it('command becomes the startCommand (argv quoted for sh -c); entrypoint and entrypoint arguments are listed', () => {
    expect(one('image: app\ncommand: ["redis-server", "--save", ""]').services[0]!.berthService!.input.startCommand).to.equal("redis-server --save ''");
    expect(why(one('image: app\ncommand: ["--port", "80"]'), 'command')).to.include('entrypoint');
    expect(why(one('image: app\nentrypoint: /bin/sh'), 'entrypoint')).to.include('entrypoint');
    expect(why(one('image: postgres\ncommand: postgres -c x=1'), 'command')).to.include('managed database');
  });

  it('healthcheck becomes argv with durations in seconds; restart is mapped, restart no warned', () => {
    const cmd = one('image: app\nhealthcheck: { test: ["CMD", "curl", "-f", "http://localhost"], interval: 1m30s, timeout: 5s, retries: 2, start_period: 10s }');
    expect(cmd.services[0]!.berthService!.healthcheck).to.deep.equal({ command: ['curl', '-f', 'http://localhost'], intervalSeconds: 90, timeoutSeconds: 5, retries: 2, startPeriodSeconds: 10 });
    expect(one('image: app\nhealthcheck: { test: "pg_isready" }').services[0]!.berthService!.healthcheck!.command).to.deep.equal(['sh', '-c', 'pg_isready']);
    expect(one('image: app\nhealthcheck: { test: ["CMD-SHELL", "a && b"] }').services[0]!.berthService!.healthcheck!.command).to.deep.equal(['sh', '-c', 'a && b']);
    expect(one('image: app\nhealthcheck: { disable: true }').services[0]!.berthService!.healthcheck).to.equal(null);
    expect(why(one('image: app\nhealthcheck: { interval: 5s }'), 'healthcheck')).to.include('test');
    const restart = one('image: app\nrestart: "no"');
    expect(restart.services[0]!.mapped).to.include('restart');
    expect(restart.warnings.join('\n')).to.include('restart: no');
  });

  it('deploy.resources.limits and mem_limit/cpus become limits; replicas > 1 and other Swarm settings are listed', () => {
    const p = one('image: app\ndeploy:\n  replicas: 3\n  resources: { limits: { memory: 1g, cpus: "0.5", pids: 100 }, reservations: { memory: 1g } }\n  placement: { constraints: [x] }');
    expect(p.services[0]!.berthService!.limits).to.deep.equal({ memoryMb: 1024, cpus: 0.5, pids: 100 });
    expect(why(p, 'deploy.replicas')).to.include('Swarm');
    expect(why(p, 'deploy.resources.reservations')).to.include('reserve');
    expect(why(p, 'deploy.placement')).to.include('Swarm');
    expect(one('image: app\nmem_limit: 256m\ncpus: 2').services[0]!.berthService!.limits).to.deep.equal({ memoryMb: 256, cpus: 2 });
  });

  it('labels, logging, user, working_dir and unknown keys are listed with a plain reason; x- keys as ignored extensions', () => {
    const p = one('image: app\nlabels: [a=b]\nlogging: { driver: syslog }\nuser: "1000"\nworking_dir: /app\nnonsense: 1\nx-mine: 1');
    expect(why(p, 'labels')).to.include('domain');
    expect(why(p, 'nonsense')).to.include('not a key of the Compose Specification');
    expect(why(p, 'x-mine')).to.equal('extension, ignored');
  });

  it('top level: name and version mapped, networks/configs/secrets listed, volume drivers and external volumes listed', () => {
    const p = plan(
      'name: x\nversion: "3.8"\nservices:\n  a:\n    image: app\nnetworks: { n: {} }\nconfigs: { c: { file: ./c } }\nsecrets: { s: { file: ./s } }\nvolumes:\n  v: { external: true }\n  w: {}\nx-top: 1\n',
    );
    expect(p.mapped).to.deep.equal(['name', 'version', 'services', 'volumes']);
    expect(p.unsupported.filter((u) => u.service === null).map((u) => u.key)).to.deep.equal(['networks', 'configs', 'secrets', 'volumes.v.external', 'x-top']);
  });

  it('depends_on orders creation (databases first); a cycle and an unknown service are refused naming them', () => {
    const p = plan('services:\n  web:\n    image: app\n    depends_on: [api]\n  api:\n    image: img2\n    depends_on: { db: { condition: service_healthy } }\n  db:\n    image: postgres\n');
    expect(p.order).to.deep.equal(['db', 'api', 'web']);
    expect(p.services[1]!.berthService!.dependsOn).to.deep.equal([{ service: 'db', condition: 'service_healthy' }]);
    expect(refused(() => plan('services:\n  a:\n    image: app\n    depends_on: [b]\n  b:\n    image: img2\n    depends_on: [a]\n'))).to.include('a -> b -> a');
    expect(refused(() => plan('services:\n  a:\n    image: app\n    depends_on: [ghost]\n'))).to.include('ghost');
  });

  it('a name with a dot or taken in the project gets another Berth name, with a warning', () => {
    const p = plan('services:\n  web.app:\n    image: app\n  db:\n    image: img2\n  other:\n    image: img3\n    environment: { API_HOST: web.app }\n', { existing: ['db'] });
    expect(p.services.map((s) => s.berthService!.name)).to.deep.equal(['web-app', 'db-2', 'other']);
    expect(p.services[2]!.berthService!.env).to.deep.equal([{ key: 'API_HOST', value: '${web-app.PRIVATE_HOST}' }]);
    expect(p.warnings.join('\n')).to.include('db-2');
  });

  it('refuses a service name Compose would refuse, and a file without services', () => {
    expect(refused(() => plan('services:\n  "a b":\n    image: app\n'))).to.include('a b');
    expect(refused(() => plan('services: {}\n'))).to.include('no service');
  });
});
