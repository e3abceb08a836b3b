import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { roomViolations } from "../../scripts/lib/rooms.mjs"
import { plant } from "../fixtures/src-tree.ts"

const src = resolve(import.meta.dirname, "../../src")

describe("the rooms of src/", () => {
  it("are kept by src/ as it is", () => {
    expect(roomViolations(src)).toEqual([])
  })

  it("allow a room to import itself and the rooms below it, and server and tui their own packages", () => {
    const root = plant({
      "core/list/a.ts": "export const a = 1",
      "store/s.ts":
        'import { a } from "../core/list/a.ts"\nimport { join } from "node:path"\nexport const s = a',
      "shared/h.ts":
        'import { s } from "../store/s.ts"\nimport type { a } from "../core/list/a.ts"\nexport const h = s',
      "server/x.ts": [
        'import { h } from "../shared/h.ts"',
        'import { s } from "../store/s.ts"',
        'import type { Plugin } from "@opencode-ai/plugin"',
        'import { z } from "zod"',
      ].join("\n"),
      "tui/v1/y.tsx": [
        'import { h } from "../../shared/h.ts"',
        'import { a } from "../../core/list/a.ts"',
        'import { createSignal } from "solid-js"',
        'import type { TuiPluginApi } from "@opencode-ai/plugin/tui"',
        'import { z } from "./z.ts"',
      ].join("\n"),
      "tui/v1/z.ts": "export const z = 1",
    })
    expect(roomViolations(root)).toEqual([])
  })

  it("catch a room importing one above it, however spelled, static, type, re-export or dynamic", () => {
    const root = plant({
      "store/s.ts": [
        'import { h } from "../shared/h.ts"',
        'import type { X } from "./../server/x.ts"',
        'export { y } from "../store/../tui/y.ts"',
      ].join("\n"),
      "shared/h.ts": 'const x = await import("../server/x.ts")',
    })
    const found = roomViolations(root)
    expect(found.map((v) => [v.file, v.specifier])).toEqual([
      ["shared/h.ts", "../server/x.ts"],
      ["store/s.ts", "../shared/h.ts"],
      ["store/s.ts", "./../server/x.ts"],
      ["store/s.ts", "../store/../tui/y.ts"],
    ])
    expect(found[0]?.problem).toBe(
      "shared imports server, a room above it (core < store < shared < server | tui)",
    )
  })

  it("catch server and tui importing each other, naming the rule", () => {
    const root = plant({
      "tui/v1/fork-start.ts": 'import { originFinder } from "../../server/origin.ts"',
      "server/hooks.ts": 'import type { Dialog } from "../tui/dialog.ts"',
    })
    const found = roomViolations(root)
    expect(found).toEqual([
      {
        file: join("server", "hooks.ts"),
        specifier: "../tui/dialog.ts",
        problem:
          "server imports tui: server and tui never import each other (core < store < shared < server | tui)",
      },
      {
        file: join("tui", "v1", "fork-start.ts"),
        specifier: "../../server/origin.ts",
        problem:
          "tui imports server: server and tui never import each other (core < store < shared < server | tui)",
      },
    ])
  })

  it("catch host packages in store and shared, TUI packages in the server, a way out of src/ and a stray file", () => {
    const root = plant({
      "store/s.ts": 'import type { Plugin } from "@opencode-ai/plugin"',
      "shared/h.ts": 'import { createSignal } from "solid-js/store"\nimport { render } from "@opentui/solid"',
      "server/x.ts":
        'import type { TuiPluginApi } from "@opencode-ai/plugin/tui"\nimport { c } from "../../scripts/c.mjs"',
      "index.ts": "export const entry = 1",
      "extra/e.ts": "export const e = 1",
    })
    expect(roomViolations(root).map((v) => [v.file, v.specifier, v.problem])).toEqual([
      [join("extra", "e.ts"), "", '"extra" is not a room of src/ (core < store < shared < server | tui)'],
      ["index.ts", "", '"index.ts" is not a room of src/ (core < store < shared < server | tui)'],
      [join("server", "x.ts"), "@opencode-ai/plugin/tui", "the server imports no TUI package"],
      [join("server", "x.ts"), "../../scripts/c.mjs", "server imports nothing outside src/"],
      [join("shared", "h.ts"), "solid-js/store", "shared imports no host package"],
      [join("shared", "h.ts"), "@opentui/solid", "shared imports no host package"],
      [join("store", "s.ts"), "@opencode-ai/plugin", "store imports no host package"],
    ])
  })
})

describe("the core's rooms", () => {
  it("allow a room to import itself and the rooms before it", () => {
    const root = plant({
      "core/list/a.ts": 'import { b } from "./b.ts"\nexport const a = b',
      "core/list/b.ts": "export const b = 1",
      "core/config.ts": 'import { a } from "./list/a.ts"\nexport const c = a',
      "core/view/v.ts":
        'import { c } from "../config.ts"\nimport type { a } from "../list/a.ts"\nexport const v = c',
    })
    expect(roomViolations(root)).toEqual([])
  })

  it("catch a room importing one above it, however the path is spelled, and static, type, re-export or dynamic", () => {
    const root = plant({
      "core/list/a.ts": [
        'import { h } from "../history/h.ts"',
        'import type { S } from "./../session/s.ts"',
        'export { v } from "../list/../view/v.ts"',
        'const c = await import("../config.ts")',
      ].join("\n"),
      "core/config.ts": 'import { m } from "./model/m.ts"',
      "core/history/h.ts": "export const h = 1",
    })
    expect(roomViolations(root).map((v) => [v.file, v.specifier])).toEqual([
      [join("core", "config.ts"), "./model/m.ts"],
      [join("core", "list", "a.ts"), "../history/h.ts"],
      [join("core", "list", "a.ts"), "./../session/s.ts"],
      [join("core", "list", "a.ts"), "../list/../view/v.ts"],
      [join("core", "list", "a.ts"), "../config.ts"],
    ])
  })

  it("catch packages, Node built-ins, a way out of the core and a file outside the rooms", () => {
    const root = plant({
      "core/model/m.ts": [
        'import { readFileSync } from "node:fs"',
        'import { join } from "path"',
        'import type { Plugin } from "@opencode-ai/plugin"',
        'import { createSignal } from "solid-js"',
        'import { render } from "@opentui/solid"',
        'import { historyOf } from "../../store/record.ts"',
      ].join("\n"),
      "core/stray.ts": "export const s = 1",
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
    expect(found.at(-1)?.problem).toContain('"stray.ts" is not a room of the core')
  })
})
