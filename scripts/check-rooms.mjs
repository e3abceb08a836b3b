#!/usr/bin/env node
// `npm run check` runs this: fails when an import breaks the rooms of src/ (scripts/lib/rooms.mjs): a room above
// its own, server and tui importing each other, a package a room may not import.
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { roomViolations } from "./lib/rooms.mjs"

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src")
const found = roomViolations(src)
for (const v of found)
  process.stderr.write(`src/${v.file}${v.specifier ? `: "${v.specifier}"` : ""}: ${v.problem}\n`)
if (found.length > 0) {
  process.stderr.write(`check-rooms: ${found.length} import(s) break the rooms of src/\n`)
  process.exit(1)
}
process.stdout.write("check-rooms: every room of src/ keeps its order\n")
