// Boots the real OpenCode 2 (`opencode serve`, the 2.0.15 binary of @opencode/cli-linux-x64-baseline) in a
// throwaway sandbox against the scripted model, and wraps its `/api` with small helpers. The sandbox, the process
// group handling and the timeouts are host.mjs's; only what differs on OpenCode 2 lives here: the config
// (`providers`, `plugins`), the server password, the `/api` routes and their `{ data }` answers, and the event
// stream's `{ id, type, data }` events.
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import {
  eventLog,
  freePort,
  makeApi,
  makeSandbox,
  PROMPT_MODEL_IDS,
  removeSandbox,
  sandboxEnv,
  spawnServer,
} from "./host.mjs"
import { sleep } from "./wait.mjs"

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
export const OPENCODE2_BIN = join(
  repoRoot,
  "node_modules",
  "@opencode",
  "cli-linux-x64-baseline",
  "bin",
  "opencode",
)
export const HOST2_VERSION = "2.0.15"
/** The password every sandboxed OpenCode 2 server is started with (it asks for one on every route). */
const PASSWORD = "sandbox"
export const AUTH = { authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString("base64")}` }

/** Whether this machine has the OpenCode 2 binary (it is a linux-x64 package). */
export const hasHost2 = () => existsSync(OPENCODE2_BIN)

/**
 * The plugin as OpenCode 2 loads a local folder: a directory whose `server` and `tui` modules re-export this
 * checkout's built entries (the host resolves `<dir>/server`, then `<dir>/index`, and `<dir>/tui`; a file path in
 * `plugins` is refused). Written into `dir`, which is returned.
 */
export function localPluginDir(dir) {
  mkdirSync(dir, { recursive: true })
  const dist = (name) => JSON.stringify(join(repoRoot, "dist", name))
  writeFileSync(join(dir, "server.js"), `export { default } from ${dist("server.mjs")}\n`)
  writeFileSync(join(dir, "tui.js"), `export { default } from ${dist("tui.mjs")}\n`)
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "opencode-todo-local", type: "module", main: "server.js" }, null, 2)}\n`,
  )
  return dir
}

/** The scripted model as an OpenAI-compatible provider of OpenCode 2 (its `providers` config key). */
export function mockProvider2(baseURL) {
  const models = {}
  for (const id of ["m", ...PROMPT_MODEL_IDS])
    models[id] = { name: id, limit: { context: 100000, output: 4096 } }
  return {
    mock: { package: "@ai-sdk/openai-compatible", settings: { baseURL, apiKey: "x" }, models },
  }
}

/** OpenCode 2 config: the scripted model as default, the plugin entries under `plugins`. */
export function host2Config({ modelUrl, plugins = [], configExtra = {} }) {
  const cfg = { model: "mock/m", share: "disabled", update: "disable", plugins, ...configExtra }
  if (modelUrl) cfg.providers = { ...mockProvider2(modelUrl), ...(configExtra.providers ?? {}) }
  return cfg
}

/**
 * Start OpenCode 2's `serve` on 127.0.0.1. options: modelUrl, plugins (default: this checkout as a local plugin
 * folder, with `pluginOptions` as its entry's options when given), configExtra, env, dataDir / projectDir (reuse across restarts), prepare(dirs), bootTimeoutMs, keep.
 */
export async function startHost2(options = {}) {
  const {
    modelUrl,
    configExtra = {},
    env = {},
    dataDir,
    projectDir,
    bootTimeoutMs = 60_000,
    keep = false,
  } = options
  const started = Date.now()
  const { dirs } = makeSandbox({ dataDir, projectDir, seed: false })
  const own = localPluginDir(join(dirs.root, "plugin"))
  const plugins = options.plugins ?? [
    options.pluginOptions ? { package: own, options: options.pluginOptions } : own,
  ]
  const config = host2Config({ modelUrl, plugins, configExtra })
  writeFileSync(join(dirs.config, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`)
  if (options.prepare) await options.prepare(dirs)
  const childEnv = sandboxEnv(dirs, { OPENCODE_SERVER_PASSWORD: PASSWORD, ...env })
  const logFile = join(dirs.logs, "server.log")
  const port = options.port ?? (await freePort())
  const server = spawnServer(
    OPENCODE2_BIN,
    ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--print-logs", "--log-level", "info"],
    { cwd: dirs.project, env: childEnv, logFile },
  )
  const url = `http://127.0.0.1:${port}`
  const api = makeApi2(url)
  try {
    const deadline = Date.now() + bootTimeoutMs
    for (;;) {
      if (server.exited) throw new Error(`host exited early (${JSON.stringify(server.exited)})`)
      try {
        await api.get("/api/command", { timeoutMs: 5000 })
        break
      } catch (err) {
        if (Date.now() > deadline) throw err
        await sleep(200)
      }
    }
  } catch (err) {
    await server.stop()
    if (!keep) removeSandbox(dirs)
    throw new Error(`OpenCode 2 not ready: ${err.message}\n${server.log().slice(-3000)}`)
  }
  const { events, waitEvent, push } = eventLog()
  const eventAbort = new AbortController()
  const streamDone = consumeEvents2(url, eventAbort.signal, (ev) =>
    push({ ...ev, receivedAt: Date.now() }),
  ).catch(() => {})

  const host = {
    version: HOST2_VERSION,
    url,
    pid: server.child.pid,
    dirs,
    env: childEnv,
    config,
    events,
    timings: { readyMs: Date.now() - started },
    log: server.log,
    api,
    waitEvent,
    ...session2Helpers(api, events, waitEvent),
    async stop({ keep: keepNow = keep } = {}) {
      eventAbort.abort()
      await Promise.race([streamDone, sleep(1000)])
      const result = await server.stop()
      if (!keepNow) removeSandbox(dirs)
      return result
    },
  }
  return host
}

/** JSON client for OpenCode 2's `/api` (host.mjs's): the password on every call, `{ data }` unwrapped, POST bodies `{}` by default. */
export function makeApi2(baseUrl) {
  const api = makeApi(baseUrl, undefined, {
    headers: AUTH,
    unwrap: (value) => (value && typeof value === "object" && "data" in value ? value.data : value),
  })
  return { ...api, post: (p, body, o) => api.call("POST", p, { ...o, body: body ?? {} }) }
}

/** The helpers over OpenCode 2's session routes the real-host checks use. */
function session2Helpers(api, events, waitEvent) {
  const s = (id, rest = "") => `/api/session/${id}${rest}`
  // An interrupt (the user's, or a question the user dismissed) ends an execution too.
  const ended = (id) => (e) =>
    (e.type === "session.execution.succeeded" ||
      e.type === "session.execution.failed" ||
      e.type === "session.execution.interrupted") &&
    e.data?.sessionID === id
  const h = {
    createSession: (body = {}) => api.post("/api/session", body),
    getSession: (id) => api.get(s(id)),
    /** Every stored message, oldest first (the route pages newest first). */
    async messages(id) {
      const all = []
      let cursor
      for (let page = 0; page < 100; page++) {
        const r = await api.call("GET", s(id, "/message"), { query: { limit: 200, cursor }, raw: true })
        if (r.status >= 300) throw new Error(`message list -> ${r.status}: ${JSON.stringify(r.body)}`)
        all.push(...(r.body?.data ?? []))
        cursor = r.body?.cursor?.next
        if (!cursor || (r.body?.data ?? []).length === 0) break
      }
      return all.reverse()
    },
    /** The messages the model is sent (after the last compaction). */
    context: (id) => api.get(s(id, "/context")),
    /** Send a prompt; resolves with the admitted message. */
    prompt: (id, text, body = {}) => api.post(s(id, "/prompt"), { text, ...body }),
    /** Prompt and wait until the session's execution ends (reminder turns it starts included, when `settle`). */
    async turn(id, text, { timeoutMs = 90_000, settle = true, ...body } = {}) {
      const since = events.length
      await h.prompt(id, text, body)
      await waitEvent(ended(id), { since, timeoutMs })
      if (settle) await h.settle(id, { timeoutMs })
      return h.messages(id)
    },
    /** Wait until no execution of this session has started without ending for `quietMs`. */
    async settle(id, { timeoutMs = 90_000, quietMs = 1500 } = {}) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const mine = events.filter(
          (e) =>
            e.data?.sessionID === id &&
            (e.type === "session.execution.started" || ended(id)(e) || e.type === "session.inbox.enqueued"),
        )
        const last = mine.at(-1)
        const idle = !last || ended(id)(last)
        if (idle && (!last || Date.now() - last.receivedAt >= quietMs)) return
        if (Date.now() > deadline) throw new Error(`session ${id} did not settle within ${timeoutMs} ms`)
        await sleep(200)
      }
    },
    /** `/todo …` and other commands: `name` without the slash, `text` its arguments. */
    command: (id, name, text = "") => api.post(s(id, "/command"), { name, text }),
    commands: () => api.get("/api/command"),
    skills: () => api.get("/api/skill"),
    plugins: () => api.get("/api/plugin"),
    agents: () => api.get("/api/agent"),
    revertStage: (id, messageID) => api.post(s(id, "/revert/stage"), { messageID }),
    revertClear: (id) => api.del(s(id, "/revert")),
    revertCommit: (id) => api.post(s(id, "/revert/commit"), {}),
    fork: (id, before) => api.post(s(id, "/fork"), before ? { before } : {}),
    compact: (id) => api.post(s(id, "/compact"), {}),
    interrupt: (id) => api.post(s(id, "/interrupt"), {}),
    rpc: (rpcID, method, input) => api.post(`/api/rpc/${rpcID}/${method}`, { input }),
  }
  return h
}

/** Read `/api/event` (server-sent events) and hand each parsed `{ id, type, data }` to `onEvent`. */
async function consumeEvents2(baseUrl, signal, onEvent) {
  const res = await fetch(new URL("/api/event", baseUrl), {
    signal,
    headers: { ...AUTH, accept: "text/event-stream" },
  })
  const decoder = new TextDecoder()
  let buf = ""
  for await (const piece of res.body) {
    buf += decoder.decode(piece, { stream: true })
    let idx = buf.indexOf("\n\n")
    while (idx !== -1) {
      const data = buf
        .slice(0, idx)
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n")
      buf = buf.slice(idx + 2)
      if (data)
        try {
          onEvent(JSON.parse(data))
        } catch {}
      idx = buf.indexOf("\n\n")
    }
  }
}
