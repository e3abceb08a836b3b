// The values the TUI keeps for the user on OpenCode 1.18 (src/tui/v1/host.tsx `v1Kept`): the host's
// key-value store as 1.18.33 has it (`api.kv`: get(key, fallback), set(key, value), ready; one store for
// the TUI and every plugin, read from kv.json after start), with our keys under the plugin's id.

import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { describe, expect, it } from "vitest"
import { COPY_ANSWER_KEY, copyFollowUp } from "../../src/core/view/dialog.ts"
import { v1Kept } from "../../src/tui/v1/host.tsx"

/** A 1.18 `api.kv` over a plain object; `ready` as the host sets it once kv.json is read. */
function fakeKv(values: Record<string, unknown> = {}, ready = true) {
  const kv = {
    ready,
    get: (key: string, fallback?: unknown) => values[key] ?? fallback,
    set: (key: string, value: unknown) => {
      values[key] = value
    },
  }
  return { api: { kv } as unknown as Pick<TuiPluginApi, "kv">, values, kv }
}

describe("v1Kept", () => {
  it("keeps the copy answer in the host's store under the plugin's id, for the install", () => {
    const { api, values } = fakeKv({ theme_mode: "dark" })
    const kept = v1Kept(api)
    expect(kept.keptFor).toBe("install")
    expect(copyFollowUp(kept.get(COPY_ANSWER_KEY))).toBe("ask")
    kept.set(COPY_ANSWER_KEY, true)
    expect(values).toEqual({ theme_mode: "dark", "opencode-todo.copy.showMarkdown": true })
    expect(copyFollowUp(v1Kept(api).get(COPY_ANSWER_KEY))).toBe("show")
  })

  it("reads nothing while the host is still loading its store", () => {
    const { api } = fakeKv({ "opencode-todo.copy.showMarkdown": false }, false)
    expect(v1Kept(api).get(COPY_ANSWER_KEY)).toBeUndefined()
  })

  it("a store that throws is no store: nothing kept, nothing thrown", () => {
    const { api, kv } = fakeKv()
    kv.get = () => {
      throw new Error("broken")
    }
    kv.set = () => {
      throw new Error("broken")
    }
    const kept = v1Kept(api)
    expect(() => kept.set(COPY_ANSWER_KEY, true)).not.toThrow()
    expect(kept.get(COPY_ANSWER_KEY)).toBeUndefined()
  })

  it("a host without `api.kv` keeps the answer for this run", () => {
    const kept = v1Kept({} as Pick<TuiPluginApi, "kv">)
    expect(kept.keptFor).toBe("run")
    kept.set(COPY_ANSWER_KEY, false)
    expect(kept.get(COPY_ANSWER_KEY)).toBe(false)
  })
})
