// The images generated Dockerfiles start from, per stack: official public images by default, each
// overridable with BERTH_AUTOBUILD_IMAGE_<KEY> (read once by config.ts), e.g. to pin versions, use
// a private mirror, or (in tests, with no registry) local stand-ins.
export const BASE_IMAGE_DEFAULTS = {
  node: 'node:22-bookworm-slim',
  python: 'python:3.12-slim-bookworm',
  go: 'golang:1.23-bookworm',
  ruby: 'ruby:3.3-slim-bookworm',
  php: 'php:8.3-cli-bookworm',
  composer: 'composer:2',
  java: 'eclipse-temurin:21-jdk',
  javaRuntime: 'eclipse-temurin:21-jre',
  maven: 'maven:3.9-eclipse-temurin-21',
  gradle: 'gradle:8-jdk21',
  rust: 'rust:1-slim-bookworm',
  dotnet: 'mcr.microsoft.com/dotnet/sdk:8.0',
  dotnetRuntime: 'mcr.microsoft.com/dotnet/aspnet:8.0',
  /** Serves static sites: Caddy, small (about 40 MB), with SPA fallback and compression built in. */
  static: 'caddy:2-alpine',
  /** Runs self-contained binaries (Go, Rust): glibc like the bookworm build images, and a shell. */
  runtime: 'debian:bookworm-slim',
} as const;

export type BaseImageKey = keyof typeof BASE_IMAGE_DEFAULTS;
export type BaseImages = Record<BaseImageKey, string>;

/** `javaRuntime` -> `BERTH_AUTOBUILD_IMAGE_JAVA_RUNTIME`. */
export function baseImageVariable(key: BaseImageKey): string {
  return `BERTH_AUTOBUILD_IMAGE_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

export function baseImageKeys(): BaseImageKey[] {
  return Object.keys(BASE_IMAGE_DEFAULTS) as BaseImageKey[];
}
