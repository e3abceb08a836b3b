#!/usr/bin/env node
// `npm run build`: tsdown with tsdown.config.ts, through its API. The tsdown command line (not the
// build) prints a notice on Node 20 that the next tsdown minor drops it; the version pinned here
// builds on Node 20 as it is, so a new user is spared a warning about a release we do not use.
// Raising the pin past 0.21 means raising this project's Node floor to 22.18.
// The build's log goes to stderr: `npm pack --json` runs this (as `prepare`) and its stdout must be
// npm's JSON alone, for the tools that read it.
import { build } from "tsdown"

console.log = console.error
console.info = console.error

try {
  await build()
} catch (error) {
  process.stderr.write(`build failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`)
  process.exit(1)
}
