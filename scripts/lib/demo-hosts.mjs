// The demo's two hosts (scripts/demo.mjs): what differs between running its session on OpenCode 1.18 and on
// OpenCode 2. Each starts its real server against the scripted model and gives the demo the parts the host
// reports (read by the story's itemOfPart), the user's change to the list the way that host's TUI makes it,
// the wait until the session is quiet, and the session's record at the end. The story, its checks and the
// model's script are the same on both.
import { HOST_VERSION, startHost } from "./host.mjs"
import { HOST2_VERSION, startHost2 } from "./host2.mjs"
import { sleep, waitQuiet } from "./wait.mjs"

/** The plugin's RPC id on OpenCode 2 (src/shared/v2-rpc.ts). */
const RPC_ID = "opencode-todo"

/** Whether a message text is the plugin's (its marker first). */
const marked = (kit, text) => typeof text === "string" && text.trimStart().startsWith(kit.MARKER)

/**
 * OpenCode 1.18: parts from `message.part.updated`; the user drops the task in the /todo dialog (its own
 * step on the shared store); the record from the session's messages.
 */
async function host1({ kit, modelUrl, serverEntry }) {
  const host = await startHost({ modelUrl, plugins: [serverEntry], bootTimeoutMs: 120_000 })
  return {
    host,
    async turn(sessionID, text) {
      await host.turn(sessionID, text, { idleTimeoutMs: 150_000 })
    },
    /** A reader of the parts reported since it last read. */
    partReader(sessionID) {
      let cursor = 0
      return () => {
        const events = host.events.slice(cursor)
        cursor += events.length
        return events
          .filter((e) => e.type === "message.part.updated" && e.properties.part.sessionID === sessionID)
          .map((e) => e.properties.part)
      }
    },
    async userDrop(sessionID, task) {
      const outcome = await kit.dialogAction({
        dir: kit.todoDir(host.env),
        session: sessionID,
        task,
        action: "drop",
      })
      const toast = outcome.toasts.map((t) => t.message).join("\n")
      return { kind: "user-edit", action: outcome.action, task, toast, list: outcome.list }
    },
    async quiet(sessionID, model) {
      await host.waitSettled(sessionID, { timeoutMs: 60_000 })
      await waitQuiet(host, model, sessionID, { quietMs: 1500, timeoutMs: 60_000 })
    },
    async record(sessionID) {
      const parts = (await host.listMessages(sessionID)).flatMap((m) => m.parts)
      const todos = parts.filter((p) => p.type === "tool" && p.tool === "todo")
      return {
        reminders: parts.filter((p) => p.type === "text" && p.synthetic && marked(kit, p.text)).length,
        todoOutputs: todos.map((p) => String(p.state?.output ?? p.state?.error ?? "")),
        finalList: todos.at(-1)?.state?.metadata?.list,
      }
    },
    stop: () => host.stop(),
  }
}

/**
 * OpenCode 2: parts read from the `/api/event` stream (the story's v2PartReader); the user's change is the
 * `/todo` line the TUI sends the server over the plugin's RPC (`run`), and the list after it is the server's
 * answer to `list`, the same route; the record from the session's messages.
 */
async function host2({ kit, modelUrl }) {
  const host = await startHost2({ modelUrl, bootTimeoutMs: 120_000 })
  return {
    host,
    async turn(sessionID, text) {
      await host.turn(sessionID, text, { timeoutMs: 150_000, settle: false })
    },
    partReader(sessionID) {
      const read = kit.v2PartReader(sessionID)
      let cursor = 0
      return () => {
        const events = host.events.slice(cursor)
        cursor += events.length
        return events.map(read).filter((p) => p !== undefined)
      }
    },
    async userDrop(sessionID, task) {
      const typed = `drop ${JSON.stringify(task)}`
      const ran = await host.rpc(RPC_ID, "run", { sessionID, text: typed })
      const reply = kit.decodeRunOutput(ran?.output)
      if (!reply) throw new Error(`the plugin's RPC answered run with ${JSON.stringify(ran)}`)
      if (!reply.ok) throw new Error(reply.text)
      const listed = await host.rpc(RPC_ID, "list", { sessionID })
      const list = kit.decodeListOutput(listed?.output)
      if (!list) throw new Error(`the plugin's RPC answered list with ${JSON.stringify(listed)}`)
      return { kind: "user-edit", action: "Drop", task, typed, toast: reply.text, list }
    },
    async quiet(sessionID, model) {
      await host.settle(sessionID, { timeoutMs: 60_000, quietMs: 1500 })
      let count = -1
      while (count !== model.requests.length) {
        count = model.requests.length
        await sleep(1500)
      }
    },
    async record(sessionID) {
      const messages = await host.messages(sessionID)
      const todos = messages
        .filter((m) => m.type === "assistant")
        .flatMap((m) => m.content ?? [])
        .filter((c) => c.type === "tool" && c.name === "todo")
      const output = (c) =>
        c.state?.status === "error"
          ? String(c.state.error?.message ?? "")
          : (c.state?.content ?? []).map((p) => p.text ?? "").join("")
      return {
        reminders: messages.filter((m) => m.type === "synthetic" && marked(kit, m.text)).length,
        todoOutputs: todos.map(output),
        finalList: todos.at(-1)?.state?.metadata?.list,
      }
    },
    stop: () => host.stop(),
  }
}

/** The hosts by the demo's `--host=` value, each with the name and version its header prints. */
export const DEMO_HOSTS = {
  1: { title: `OpenCode ${HOST_VERSION}`, start: host1 },
  2: { title: `OpenCode ${HOST2_VERSION}`, start: host2 },
}
