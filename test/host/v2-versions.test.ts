// The server's OpenCode 2 binding against the host's other versions, as the fake V2 host models them
// (test/fixtures/v2-host.ts says where each is read): a build whose core registers its own `todowrite`, and the
// per-request hook under its other names and shapes (`context` with or without `kind`, `request`, a compaction hook
// that carries only the summarizer's prompt).

import { afterEach, describe, expect, it, vi } from "vitest"
import { MARKER } from "../../src/core/list/words.ts"
import { type HookShape, requestTexts, startV2Host, type V2Host } from "../fixtures/v2-host.ts"
import { ANTHROPIC_2 } from "../fixtures/v2-prompts.ts"

const hosts: V2Host[] = []
async function start(options?: Parameters<typeof startV2Host>[0]) {
  const host = await startV2Host(options)
  hosts.push(host)
  return host
}
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.cleanup()
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

const PLAN = { op: "init", list: [{ phase: "Build", items: ["A", "B", "C"] }] }
/** The words of the list the summarizer is given (core/model/prompts.ts). */
const FOR_SUMMARIZER = "Include it verbatim in the summary"

describe("OpenCode 2: a build with its own todowrite", () => {
  it("takes the host's todowrite out of the registry and of every request, and still steers its prompt", async () => {
    const host = await start({
      hostTools: ["todowrite"],
      systemPrompt: ANTHROPIC_2,
      modelID: "claude-sonnet-4",
    })
    expect([...host.tools.keys()]).toEqual(["todo"])
    await host.prompt("ses_w1", "Build")
    const request = await host.request("ses_w1")
    expect(Object.keys(request.tools)).toEqual(["todo"])
    expect(request.system[0]!.text).not.toMatch(/todowrite/)
  })

  it("keeps it, and the host's prompt as it is, with keepTodowrite", async () => {
    const host = await start({
      hostTools: ["todowrite"],
      pluginOptions: { keepTodowrite: true },
      systemPrompt: ANTHROPIC_2,
      modelID: "claude-sonnet-4",
    })
    expect([...host.tools.keys()].sort()).toEqual(["todo", "todowrite"])
    await host.prompt("ses_w2", "Build")
    const request = await host.request("ses_w2")
    expect(Object.keys(request.tools).sort()).toEqual(["todo", "todowrite"])
    expect(request.system[0]!.text).toBe(ANTHROPIC_2)
  })

  it("takes one registered after the plugin out of each request", async () => {
    const host = await start()
    host.addHostTool("todowrite")
    await host.prompt("ses_w3", "Build")
    const request = await host.request("ses_w3")
    expect(host.offered(request, "todowrite")).toBe(false)
    expect(host.offered(request, "todo")).toBe(true)
  })

  it("says once that the editor cannot remove it, and still keeps it out of requests", async () => {
    const stderr = captureStderr()
    const host = await start({ hostTools: ["todowrite"], editorWithout: ["remove"] })
    expect(host.tools.has("todowrite")).toBe(true)
    await host.prompt("ses_w4", "Build")
    expect(Object.keys((await host.request("ses_w4")).tools)).toEqual(["todo"])
    expect(Object.keys((await host.request("ses_w4")).tools)).toEqual(["todo"])
    expect(stderr.filter((l) => l.includes("a tool editor with remove()"))).toHaveLength(1)
  })
})

describe("OpenCode 2: the tool registry replays every transform in order", () => {
  it("rebuilds from every registration on each change: todo once, the todowrite before it still removed", async () => {
    const host = await start({ hostTools: ["todowrite"] })
    host.addHostTool("edit")
    host.addHostTool("read")
    expect([...host.tools.keys()]).toEqual(["todo", "edit", "read"])
    // Our transform ran once per rebuild, each time on a fresh registry.
    expect(host.toolRebuilds).toBeGreaterThanOrEqual(3)
    await host.prompt("ses_r1", "Build")
    expect(Object.keys((await host.request("ses_r1")).tools)).toEqual(["todo", "edit", "read"])
  })

  it("drops the plugin's tool when the plugin unloads, and gives back the todowrite it removed", async () => {
    const host = await start({ hostTools: ["todowrite"] })
    await host.unload()
    expect([...host.tools.keys()]).toEqual(["todowrite"])
  })

  it("says once that the editor cannot remove the todowrite, however often the registry is rebuilt", async () => {
    const stderr = captureStderr()
    const host = await start({ hostTools: ["todowrite"], editorWithout: ["remove"] })
    host.addHostTool("edit")
    host.addHostTool("read")
    expect(stderr.filter((l) => l.includes("a tool editor with remove()"))).toHaveLength(1)
  })
})

describe("OpenCode 2: a session hook name the host does not have", () => {
  it("is accepted and never called (the host keys hooks by name and checks none), so nothing is logged", async () => {
    const stderr = captureStderr()
    const host = await start({ hookShape: "context" })
    expect(host.hooksRegistered()).toEqual(
      expect.arrayContaining(["prompt", "context", "request", "compaction"]),
    )
    expect(stderr.filter((l) => l.includes("session hook"))).toEqual([])
  })
})

describe.each<HookShape>(["kind", "context", "request", "compaction-prompt", "session-agent"])(
  "OpenCode 2's per-request hook, shape %s",
  (shape) => {
    it("tells the model in its own requests only, gives the summarizer the list once, and notices after", async () => {
      const host = await start({ hookShape: shape, pluginOptions: { eager: "always" } })
      await host.prompt("ses_h", "Build the thing")
      // The prelude goes with the agent's own request.
      expect(requestTexts(await host.request("ses_h")).some((t) => t.startsWith(MARKER))).toBe(true)
      // A title request gets nothing of ours.
      const title = await host.request("ses_h", "title")
      expect(requestTexts(title).some((t) => t.startsWith(MARKER))).toBe(false)
      await host.call("ses_h", "todo", PLAN)
      const summarizer = await host.compact("ses_h")
      // In its system, or in the prompt the shape's compaction hook carries (the request's one user message).
      const given = [...summarizer.system.map((p) => p.text), ...requestTexts(summarizer as never)].filter(
        (t) => t.includes(FOR_SUMMARIZER),
      )
      expect(given).toHaveLength(1)
      // No notice of ours in the summarizer's request.
      expect(requestTexts(summarizer as never).some((t) => t.startsWith(MARKER))).toBe(false)
      await host.prompt("ses_h", "Continue")
      const after = requestTexts(await host.request("ses_h"))
      expect(after.some((t) => t.includes("The conversation was compacted"))).toBe(true)
    })

    it("adds nothing to a transient generation (no todo offered), and nothing to a title request", async () => {
      const host = await start({ hookShape: shape, pluginOptions: { eager: "always" } })
      await host.prompt("ses_g", "Build the thing")
      await host.call("ses_g", "todo", PLAN)
      const generated = await host.request("ses_g", "generate")
      expect(requestTexts(generated).some((t) => t.startsWith(MARKER) || t.includes(FOR_SUMMARIZER))).toBe(
        false,
      )
      const title = await host.request("ses_g", "title")
      expect(requestTexts(title).some((t) => t.startsWith(MARKER))).toBe(false)
    })
  },
)
