// The rooms of src/, checked rather than kept by habit (`npm run check` runs scripts/check-rooms.mjs).
// Every file of src/ lives in a room (a top-level folder; no file sits at src/'s top), and a room imports
// only itself and the rooms below it: core < store < shared < server | tui, and the core's own rooms the
// same way. What each room owns: docs/development.md, "Layout".

import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import ts from "typescript"

/**
 * The rooms of src/ and the rooms each may import besides itself. server and tui are peers above shared:
 * neither imports the other.
 */
export const OUTER_ROOMS = {
  core: [],
  store: ["core"],
  shared: ["core", "store"],
  server: ["core", "store", "shared"],
  tui: ["core", "store", "shared"],
}

/** The rooms of src/core/, lowest first: a room imports only itself and the rooms before it. */
export const ROOM_ORDER = ["list", "history", "config.ts", "model", "session", "view"]

/** Packages a room may not import, by room (the core imports no package at all). */
const BARRED_PACKAGES = {
  // Loaded by both sides on both hosts: no host's SDK and no renderer.
  store: { test: /^(@opencode-ai\/|@opentui\/|solid-js(\/|$))/, why: "store imports no host package" },
  shared: { test: /^(@opencode-ai\/|@opentui\/|solid-js(\/|$))/, why: "shared imports no host package" },
  // The server runs where no renderer is loaded.
  server: {
    test: /^(@opencode-ai\/plugin\/tui|@opentui\/|solid-js(\/|$))/,
    why: "the server imports no TUI package",
  },
}

const OUTER = "core < store < shared < server | tui"
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/

/** Every source file under `dir`, in the order the folder lists them. */
export function sourceFiles(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sourceFiles(path))
    else if (SOURCE.test(entry.name)) out.push(path)
  }
  return out
}

/** The room of a path relative to its root: its first folder, or the file's own name at the top. */
function roomOf(path) {
  return path.split(sep)[0]
}

/** What is wrong with `file` (in core room `room`) importing `specifier`, or undefined. */
function coreProblem(file, room, specifier) {
  if (!specifier.startsWith(".")) return "the core imports no package and no Node built-in"
  const target = relative("core", join(dirname(file), specifier))
  if (target === ".." || target.startsWith(`..${sep}`)) return "the core imports nothing outside src/core/"
  const targetRoom = roomOf(target)
  const targetRank = ROOM_ORDER.indexOf(targetRoom)
  if (targetRank > ROOM_ORDER.indexOf(room) || targetRank < 0)
    return `core/${room} imports core/${targetRoom}, a room above it (${ROOM_ORDER.join(" < ")})`
  return undefined
}

/** What is wrong with `file` (in outer room `room`, not the core) importing `specifier`, or undefined. */
function outerProblem(file, room, specifier) {
  if (!specifier.startsWith(".")) {
    const barred = BARRED_PACKAGES[room]
    return barred?.test.test(specifier) ? barred.why : undefined
  }
  const target = join(dirname(file), specifier)
  if (target === ".." || target.startsWith(`..${sep}`)) return `${room} imports nothing outside src/`
  const targetRoom = roomOf(target)
  if (targetRoom === room || OUTER_ROOMS[room].includes(targetRoom)) return undefined
  if (!(targetRoom in OUTER_ROOMS)) return `"${targetRoom}" is not a room of src/ (${OUTER})`
  const peers = room === "server" || room === "tui"
  return peers && (targetRoom === "server" || targetRoom === "tui")
    ? `${room} imports ${targetRoom}: server and tui never import each other (${OUTER})`
    : `${room} imports ${targetRoom}, a room above it (${OUTER})`
}

/**
 * Every import under `src` (a folder, src/ in this repository) that breaks the rooms, as
 * `{ file, specifier, problem }` with `file` relative to `src`. Empty when the tree keeps them. Imports are
 * read with TypeScript's own pre-processor (static, dynamic and type-only imports and re-exports alike) and
 * resolved as paths, so no spelling of a path gets around the order.
 */
export function roomViolations(src) {
  const root = resolve(src)
  const found = []
  for (const path of sourceFiles(root).sort()) {
    const file = relative(root, path)
    const room = roomOf(file)
    const inCore = room === "core"
    const coreRoom = inCore ? roomOf(relative("core", file)) : undefined
    const problem = !(room in OUTER_ROOMS)
      ? `"${room}" is not a room of src/ (${OUTER})`
      : inCore && !ROOM_ORDER.includes(coreRoom)
        ? `"${coreRoom}" is not a room of the core (${ROOM_ORDER.join(" < ")})`
        : undefined
    if (problem) {
      found.push({ file, specifier: "", problem })
      continue
    }
    const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true)
    for (const { fileName: specifier } of importedFiles) {
      const broken = inCore ? coreProblem(file, coreRoom, specifier) : outerProblem(file, room, specifier)
      if (broken) found.push({ file, specifier, problem: broken })
    }
  }
  return found
}
