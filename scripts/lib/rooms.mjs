// The core's rooms, checked rather than kept by habit (`npm run check` runs scripts/check-rooms.mjs).
// src/core/ is values in, values out: it imports no package and no Node built-in (no `node:*`, no
// `@opencode-ai/*`, no Solid, no `@opentui/*`, nothing else either), and never leaves src/core/.
// Its rooms stand in this order, and a room imports only itself and the rooms before it:
//
//   list       the list itself: types, parse, reducers, execute, diff, markdown, words, text width, the
//              list a part carries
//   history    the list's history in the conversation: rows, spans, edits, rewind, the list in effect,
//              fork, rebuild
//   config.ts  the rule table of settings (it reads only list)
//   model      what the model reads: format, prompts, stale results, the host's prompt
//   session    a session's step: the tracker, questions, permission, toasts
//   view       what the TUI shows: sidebar, compact line, dialog, the TUI's revert reading
//
// Imports are read with TypeScript's own pre-processor (static, dynamic and type-only imports and
// re-exports alike) and resolved as paths, so no spelling of a path gets around the order.

import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import ts from "typescript"

/** The rooms of src/core/, lowest first. */
export const ROOM_ORDER = ["list", "history", "config.ts", "model", "session", "view"]

const SOURCE = /\.(ts|tsx|mts|js|mjs)$/

function sourceFiles(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sourceFiles(path))
    else if (SOURCE.test(entry.name)) out.push(path)
  }
  return out
}

/** The room a path inside the core belongs to: its first folder, or the file's own name at the top. */
function roomOf(pathInCore) {
  return pathInCore.split(sep)[0]
}

/**
 * Every import under `core` (a folder, src/core/ in this repository) that breaks the rule, as
 * `{ file, specifier, problem }` with `file` relative to `core`. Empty when the core keeps it.
 */
export function roomViolations(core) {
  const root = resolve(core)
  const found = []
  for (const file of sourceFiles(root).sort()) {
    const name = relative(root, file)
    const room = roomOf(name)
    const rank = ROOM_ORDER.indexOf(room)
    if (rank < 0) {
      found.push({
        file: name,
        specifier: "",
        problem: `"${room}" is not a room (${ROOM_ORDER.join(" < ")})`,
      })
      continue
    }
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith(".")) {
        found.push({ file: name, specifier, problem: "the core imports no package and no Node built-in" })
        continue
      }
      const target = relative(root, resolve(dirname(file), specifier))
      if (target === ".." || target.startsWith(`..${sep}`)) {
        found.push({ file: name, specifier, problem: "the core imports nothing outside src/core/" })
        continue
      }
      const targetRoom = roomOf(target)
      const targetRank = ROOM_ORDER.indexOf(targetRoom)
      if (targetRank > rank || targetRank < 0)
        found.push({
          file: name,
          specifier,
          problem: `${room} imports ${targetRoom}, a room above it (${ROOM_ORDER.join(" < ")})`,
        })
    }
  }
  return found
}
