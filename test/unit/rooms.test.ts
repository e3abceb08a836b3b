// The core's room rule (scripts/lib/rooms.mjs): the tree keeps it, and each kind of break is caught.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { roomViolations } from "../../scripts/lib/rooms.mjs"

const core = resolve(import.meta.dirname, "../../src/core")
let dir: string | undefined

/** A core folder with these files (path -> text). */
function plant(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "rooms-"))
  const root = join(dir, "core")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

describe("the core's rooms", () => {
  it("are kept by src/core/ as it is", () => {
    expect(roomViolations(core)).toEqual([])
  })

  it("allow a room to import itself and the rooms before it", () => {
    const root = plant({
      "list/a.ts": 'import { b } from "./b.ts"\nexport const a = b',
      "list/b.ts": "export const b = 1",
      "config.ts": 'import { a } from "./list/a.ts"\nexport const c = a',
      "view/v.ts":
        'import { c } from "../config.ts"\nimport type { a } from "../list/a.ts"\nexport const v = c',
    })
    expect(roomViolations(root)).toEqual([])
  })

  it("catch a room importing one above it, however the path is spelled, and static, type, re-export or dynamic", () => {
    const root = plant({
      "list/a.ts": [
        'import { h } from "../history/h.ts"',
        'import type { S } from "./../session/s.ts"',
        'export { v } from "../list/../view/v.ts"',
        'const c = await import("../config.ts")',
      ].join("\n"),
      "config.ts": 'import { m } from "./model/m.ts"',
      "history/h.ts": "export const h = 1",
    })
    expect(roomViolations(root).map((v) => [v.file, v.specifier])).toEqual([
      ["config.ts", "./model/m.ts"],
      ["list/a.ts", "../history/h.ts"],
      ["list/a.ts", "./../session/s.ts"],
      ["list/a.ts", "../list/../view/v.ts"],
      ["list/a.ts", "../config.ts"],
    ])
  })

  it("catch packages, Node built-ins, a way out of the core and a file outside the rooms", () => {
    const root = plant({
      "model/m.ts": [
        'import { readFileSync } from "node:fs"',
        'import { join } from "path"',
        'import type { Plugin } from "@opencode-ai/plugin"',
        'import { createSignal } from "solid-js"',
        'import { render } from "@opentui/solid"',
        'import { historyOf } from "../../store/record.ts"',
      ].join("\n"),
      "stray.ts": "export const s = 1",
    })
    const found = roomViolations(root)
    expect(found.map((v) => v.specifier)).toEqual([
      "node:fs",
      "path",
      "@opencode-ai/plugin",
      "solid-js",
      "@opentui/solid",
      "../../store/record.ts",
      "",
    ])
    expect(found.at(-1)?.problem).toContain('"stray.ts" is not a room')
  })
})
