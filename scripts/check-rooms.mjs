#!/usr/bin/env node
// `npm run check` runs this: fails when src/core/ imports a package, a Node built-in or anything outside
// the core, or when one of its rooms imports a room above it. The rule and the order: scripts/lib/rooms.mjs.
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { roomViolations } from "./lib/rooms.mjs"

const core = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "core")
const found = roomViolations(core)
for (const v of found)
  process.stderr.write(`src/core/${v.file}${v.specifier ? `: "${v.specifier}"` : ""}: ${v.problem}\n`)
if (found.length > 0) {
  process.stderr.write(`check-rooms: ${found.length} import(s) break the core's rule\n`)
  process.exit(1)
}
process.stdout.write("check-rooms: the core's rooms keep their order\n")
