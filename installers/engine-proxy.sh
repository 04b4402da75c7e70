#!/usr/bin/env bash
# Docker's userland proxy, as /etc/docker/daemon.json sets it (README, "Docker's userland proxy").
# Berth's installer turns it off: Caddy then reaches an app's published 127.0.0.1 port through the
# kernel's NAT instead of a docker-proxy process that copies every connection (bench:dataplane
# prints what that saves). The owner's own choice wins: a file that already has the key is kept.
#
#   engine-proxy.sh off NODE [FILE]      adds "userland-proxy": false when the key is absent
#                                        (FILE is created if missing); prints `added` or `kept`
#   engine-proxy.sh restore NODE [FILE]  removes the key again; prints `removed` or `absent`
#
# NODE is a Node.js binary (the release bundle's): daemon.json is parsed and written as JSON, never
# edited as text. A file that is not a JSON object is left alone (exit 1, with why). The write is a
# rename of a complete file, with the old file's mode.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: engine-proxy.sh off|restore NODE [FILE]" >&2; exit 2; }
verb=$1 node=$2 file=${3:-/etc/docker/daemon.json}
case "$verb" in off | restore) ;; *) echo "usage: engine-proxy.sh off|restore NODE [FILE]" >&2; exit 2 ;; esac
exec "$node" -e '
const fs = require("node:fs");
const path = require("node:path");
const [verb, file] = process.argv.slice(1);
let text = "";
let mode = 0o644;
try {
  text = fs.readFileSync(file, "utf8");
  mode = fs.statSync(file).mode & 0o777;
} catch (err) {
  if (err.code !== "ENOENT") throw err;
}
let config;
try {
  config = text.trim() === "" ? {} : JSON.parse(text);
} catch (err) {
  console.error(`${file} is not valid JSON (${err.message}): left as it is`);
  process.exit(1);
}
if (typeof config !== "object" || config === null || Array.isArray(config)) {
  console.error(`${file} is not a JSON object: left as it is`);
  process.exit(1);
}
const has = Object.prototype.hasOwnProperty.call(config, "userland-proxy");
if (verb === "off" ? has : !has) {
  console.log(verb === "off" ? "kept" : "absent");
  process.exit(0);
}
if (verb === "off") config["userland-proxy"] = false;
else delete config["userland-proxy"];
fs.mkdirSync(path.dirname(file), { recursive: true });
const tmp = `${file}.berth-${process.pid}`;
fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode });
fs.renameSync(tmp, file);
console.log(verb === "off" ? "added" : "removed");
' "$verb" "$file"
