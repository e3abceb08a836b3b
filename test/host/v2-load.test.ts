// The one server entry on both hosts: OpenCode 2's `setup` adds nothing where the context is 1.x's partial one
// (as typed in @opencode-ai/plugin/v2/promise, which 1.18.33 ships), and on OpenCode 2 a capability the host lacks
// is logged once while the rest works.

import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { PluginContext } from "@opencode-ai/plugin/v2/promise"
import { afterEach, describe, expect, it, vi } from "vitest"
import entry from "../../src/server/index.ts"
import { startV2Host, until } from "../fixtures/v2-host.ts"

afterEach(() => {
  vi.restoreAllMocks()
})

function captureStderr(): string[] {
  const lines: string[] = []
  vi.spyOn(process.stderr, "write").mockImplementation(((chunk: unknown) => {
    lines.push(String(chunk))
    return true
  }) as never)
  return lines
}

describe("the server entry", () => {
  it("exports { id, server, setup }", () => {
    expect(Object.keys(entry).sort()).toEqual(["id", "server", "setup"])
    expect(typeof entry.server).toBe("function")
    expect(typeof entry.setup).toBe("function")
  })

  it("registers nothing from setup on a 1.x partial context (no tool registry, no session hooks)", async () => {
    const root = mkdtempSync(join(tmpdir(), "todo-v1-setup-"))
    const saved = process.env.XDG_DATA_HOME
    process.env.XDG_DATA_HOME = join(root, "data")
    const transforms: string[] = []
    // Each draft is empty: a transform the binding called would show in `transforms` first.
    const transform = (name: string) => async (callback: (draft: never) => void | Promise<void>) => {
      transforms.push(name)
      await callback({} as never)
      return { dispose: async () => {} }
    }
    const hooks = { transform: transform("x"), reload: async () => {} }
    const context: PluginContext = {
      options: {},
      agent: { transform: transform("agent"), reload: async () => {} },
      aisdk: {} as PluginContext["aisdk"],
      catalog: { ...hooks, transform: transform("catalog") } as PluginContext["catalog"],
      command: { transform: transform("command"), reload: async () => {} },
      integration: {
        ...hooks,
        transform: transform("integration"),
      } as unknown as PluginContext["integration"],
      plugin: { add: async () => {}, remove: async () => {} },
      reference: { ...hooks, transform: transform("reference") } as PluginContext["reference"],
      skill: { transform: transform("skill"), reload: async () => {} },
    }
    const stderr = captureStderr()
    try {
      const cleanup = await entry.setup(context)
      expect(cleanup).toBeUndefined()
      expect(transforms).toEqual([])
      expect(existsSync(join(root, "data"))).toBe(false)
      expect(stderr).toHaveLength(1)
      expect(stderr[0]).toMatch(/not OpenCode 2/)
    } finally {
      if (saved === undefined) delete process.env.XDG_DATA_HOME
      else process.env.XDG_DATA_HOME = saved
      rmSync(root, { recursive: true, force: true })
    }
  })
})

describe("OpenCode 2 without some capabilities", () => {
  it("logs each missing capability once and the tool still works", async () => {
    const stderr = captureStderr()
    const host = await startV2Host({ without: ["rpc", "skill", "command", "session.synthetic"] })
    try {
      expect([...host.tools.keys()]).toEqual(["todo"])
      expect(host.commands.size).toBe(0)
      expect(host.skills).toHaveLength(0)
      await host.prompt("ses_w", "Build")
      const plan = { op: "init", list: [{ phase: "P", items: ["A", "B"] }] }
      expect((await host.call("ses_w", "todo", plan)).metadata.ok).toBe(true)
      await host.call("ses_w", "todo", { op: "done", task: "A" })
      await host.reply("ses_w", "Stopping here.")
      await host.idle("ses_w")
      await until(() => stderr.some((l) => l.includes("session.synthetic")))
      const text = stderr.join("")
      for (const what of ["plugin RPC", "a skill registry", "a command registry", "session.synthetic"])
        expect(text.includes(what), what).toBe(true)
      // Each once, however often the missing capability is reached (two list changes, a toast).
      const count = (needle: string) => stderr.filter((l) => l.includes(needle)).length
      expect(count("the changed events for the TUI are not sent")).toBe(1)
    } finally {
      await host.cleanup()
    }
  })

  it("logs once each that it cannot read the session's info, its messages or the agent list, and goes on", async () => {
    const stderr = captureStderr()
    const host = await startV2Host({ without: ["session.get", "session.context", "agent"] })
    try {
      // Sessions made before the plugin loaded (no session.created reached it): first met through their prompts.
      host.session("ses_q")
      host.session("ses_q2")
      await host.prompt("ses_q", "Build")
      const plan = { op: "init", list: [{ phase: "P", items: ["A", "B"] }] }
      expect((await host.call("ses_q", "todo", plan)).metadata.ok).toBe(true)
      await host.prompt("ses_q", "Go on")
      await host.request("ses_q")
      const msg = await host.reply("ses_q", "Done for now.")
      await host.revert("ses_q", msg)
      await host.unrevert("ses_q")
      await host.prompt("ses_q2", "Another")
      const count = (needle: string) => stderr.filter((l) => l.includes(needle)).length
      expect(count("OpenCode 2 host without session.get")).toBe(1)
      expect(count("OpenCode 2 host without session.context")).toBe(1)
      expect(count("the host's agent list could not be read")).toBe(1)
    } finally {
      await host.cleanup()
    }
  })
})
