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
  const pickJar = (dir: string) => `mkdir -p /app/.berth && cp "$(ls ${dir}/*.jar | grep -v -e '-plain\\.jar$' -e '-sources\\.jar$' -e '-javadoc\\.jar$' | head -n 1)" ${JAR}`;
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
    mainClass = mainClassOf(f.read(path) ?? '');
    if (mainClass !== null) break;
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

/**
 * The binary name of the class declaring `public static void main(` in a Java source, read from
 * the source itself (not the file name: `server.java` may declare `class Server`): its package,
 * then the enclosing classes joined by `$` (a nested `Outer.Inner` runs as `Outer$Inner`). Null
 * when the file declares no main method. Comments, strings and character literals are skipped.
 */
export function mainClassOf(source: string): string | null {
  const code = stripCommentsAndLiterals(source);
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(code)?.[1];
  const main = /\b(?:public\s+static|static\s+public)\s+(?:final\s+)?void\s+main\s*\(/g.exec(code);
  if (!main) return null;
  // Walk the braces up to the main method, keeping the stack of open type bodies.
  const open: (string | null)[] = [];
  let pending: string | null = null;
  const token = /\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)|[{}]/g;
  let m: RegExpExecArray | null;
  while ((m = token.exec(code)) !== null && m.index < main.index) {
    if (m[1] !== undefined) pending = m[1];
    else if (m[0] === '{') {
      open.push(pending);
      pending = null;
    } else open.pop();
  }
  const names = open.filter((n): n is string => n !== null);
  if (names.length === 0) return null;
  const binary = names.join('$');
  return pkg ? `${pkg}.${binary}` : binary;
}

/** The source with comments, string and character literals blanked out (lengths kept). */
function stripCommentsAndLiterals(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (s) => s.replace(/[^\n]/g, ' '));
}
