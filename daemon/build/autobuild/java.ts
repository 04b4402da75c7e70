// Java: Maven (pom.xml), Gradle (build.gradle[.kts]), or plain sources compiled with javac (a
// class with `public static void main`). The jar (or classes) run on a JRE image; Spring Boot
// gets server.port from $PORT, other apps read PORT themselves.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

const JAR = '/app/.berth/app.jar';

export function detectJava(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const pom = f.read('pom.xml');
  const gradle = f.read('build.gradle') ?? f.read('build.gradle.kts');
  const common = {
    stack: 'java' as const,
    installCommand: null,
    staticOutput: null,
    defaultPort: 8080,
  };
  const pickJar = (dir: string) =>
    `mkdir -p /app/.berth && cp "$(ls ${dir}/*.jar | grep -v -e '-plain\\.jar$' -e '-sources\\.jar$' -e '-javadoc\\.jar$' | head -n 1)" ${JAR}`;
  if (pom !== null || gradle !== null) {
    const text = pom ?? gradle ?? '';
    const framework = /spring-boot/.test(text) ? 'spring-boot' : /quarkus/.test(text) ? 'quarkus' : /micronaut/.test(text) ? 'micronaut' : null;
    const start = framework === 'spring-boot' ? `java -Dserver.port=$PORT -jar ${JAR}` : `java -jar ${JAR}`;
    if (pom !== null) {
      const mvn = f.isFile('mvnw') ? 'chmod +x mvnw && ./mvnw' : 'mvn';
      return {
        ...common,
        framework,
        tool: 'maven',
        buildCommand: `${mvn} -B -DskipTests package`,
        startCommand: start,
        buildImage: 'maven',
        collect: [pickJar('target')],
        runtime: { kind: 'artifact', image: 'javaRuntime', copy: [{ from: JAR, to: JAR }] },
      };
    }
    const gw = f.isFile('gradlew') ? 'chmod +x gradlew && ./gradlew' : 'gradle';
    return {
      ...common,
      framework,
      tool: 'gradle',
      buildCommand: `${gw} --no-daemon build -x test`,
      startCommand: start,
      buildImage: 'gradle',
      collect: [pickJar('build/libs')],
      runtime: { kind: 'artifact', image: 'javaRuntime', copy: [{ from: JAR, to: JAR }] },
    };
  }
  return null;
}

/** Plain sources without a build tool, compiled with javac: the class declaring main, with its package. */
export function detectJavaSources(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const common = { stack: 'java' as const, installCommand: null, staticOutput: null, defaultPort: 8080 };
  const sources = f.find((n) => n.endsWith('.java'), '.', 6);
  if (sources.length === 0) return null;
  let mainClass: string | null = null;
  for (const path of sources) {
    const text = f.read(path) ?? '';
    if (!/public\s+static\s+void\s+main\s*\(/.test(text)) continue;
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
    const cls = path.split('/').pop()!.replace(/\.java$/, '');
    mainClass = pkg ? `${pkg}.${cls}` : cls;
    break;
  }
  return {
    ...common,
    framework: null,
    tool: 'javac',
    buildCommand: "mkdir -p /app/.berth/classes && javac -d /app/.berth/classes $(find . -name '*.java' -not -path './.berth/*')",
    startCommand: mainClass ? `java -cp /app/.berth/classes ${mainClass}` : null,
    buildImage: 'java',
    runtime: { kind: 'artifact', image: 'javaRuntime', copy: [{ from: '/app/.berth/classes', to: '/app/.berth/classes' }] },
  };
}
