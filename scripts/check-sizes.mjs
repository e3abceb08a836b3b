#!/usr/bin/env node
// `npm run check` runs this: fails when a file or a function of src/ breaks the size rule (scripts/lib/sizes.mjs).
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { sizeViolations } from "./lib/sizes.mjs"

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src")
const found = sizeViolations(src)
for (const v of found) process.stderr.write(`src/${v.file}: ${v.problem}\n`)
if (found.length > 0) {
  process.stderr.write(`check-sizes: ${found.length} break(s) of the size rule\n`)
  process.exit(1)
}
process.stdout.write("check-sizes: every file, function and module header of src/ keeps its size\n")
