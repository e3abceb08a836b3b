#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional binary packages (opencode-*,
// @opentui/core-*). When the registry in use serves only some platforms, npm leaves the rest
// out of the lock, and `npm ci` then refuses the lock as out of sync. The entries added here carry
// only their os/cpu/libc constraints, so npm skips them on other platforms and never fetches them.
// Run after any dependency change: node scripts/lock-platforms.mjs
import { readFileSync, writeFileSync } from "node:fs"

const file = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(file, "utf8"))
const packages = lock.packages
const OS = { darwin: "darwin", linux: "linux", windows: "win32", win32: "win32" }

function constraints(name) {
  const parts = name
    .replace(/^@opentui\/core-/, "")
    .replace(/^opencode-/, "")
    .split("-")
  const os = OS[parts[0]]
  const cpu = parts[1]
  if (!os || !cpu) return undefined
  const entry = { os: [os], cpu: [cpu] }
  if (parts.includes("musl")) entry.libc = ["musl"]
  else if (os === "linux") entry.libc = ["glibc"]
  return entry
}

let added = 0
for (const [path, meta] of Object.entries(packages)) {
  if (!meta.optionalDependencies || !/node_modules\/(opencode-ai|@opentui\/core)$/.test(path)) continue
  for (const [name, version] of Object.entries(meta.optionalDependencies)) {
    const key = `node_modules/${name}`
    if (packages[key]) continue
    const platform = constraints(name)
    if (!platform) continue
    packages[key] = { version, dev: meta.dev, optional: true, ...platform }
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
)
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lock-platforms: added ${added} platform entries`)
