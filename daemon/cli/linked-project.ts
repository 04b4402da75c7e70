// `berth link`: this directory -> a project, in .berth/project.json (found from the working
// directory upwards, like .git), so commands name services by name or slug.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface LinkedProject {
  projectId: string;
  projectSlug: string;
  /** The server the project lives on; a command against another server ignores the link. */
  server: string;
}

const LINK_FILE = join('.berth', 'project.json');

export function findLinkedProject(from = process.cwd()): { link: LinkedProject; path: string } | null {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const path = join(dir, LINK_FILE);
    if (existsSync(path)) {
      try {
        const link = JSON.parse(readFileSync(path, 'utf8')) as LinkedProject;
        if (typeof link.projectId === 'string') return { link, path };
      } catch {
        // an unreadable link is no link; `berth link` rewrites it
      }
    }
    if (dirname(dir) === dir) return null;
  }
}

export function writeLinkedProject(link: LinkedProject, dir = process.cwd()): string {
  const path = join(dir, LINK_FILE);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(link, null, 2) + '\n');
  return path;
}
