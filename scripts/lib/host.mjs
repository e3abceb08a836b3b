// Boots the real `opencode serve` in a throwaway sandbox (own HOME, XDG dirs, git project) and
// wraps its HTTP API with small helpers. Every HTTP call carries a timeout and stop() kills the
// whole process group, so a hung host can never outlive the script that started it.
import { spawn, spawnSync } from "node:child_process"
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { sleep } from "./wait.mjs"

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
export const OPENCODE_BIN = join(repoRoot, "node_modules", ".bin", "opencode")
export const HOST_VERSION = "1.18.33"

/** Env switches that keep the host from reaching out or reading the developer's own setup. */
export const QUIET_ENV = {
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
}

/**
 * Model ids the scripted model is also served under, one per system prompt the host picks by
 * model id (anthropic, Muse, the gpt-4/o1/o3 one); `m` gets the host's default prompt.
 */
export const PROMPT_MODEL_IDS = ["claude-sonnet-4", "muse-spark", "gpt-4.1"]

/** Provider block for a scripted OpenAI-compatible model at `baseURL` (ends with /v1). */
export function mockProvider(baseURL) {
  const models = {}
  for (const id of ["m", ...PROMPT_MODEL_IDS])
    models[id] = { name: id, tool_call: true, limit: { context: 100000, output: 4096 } }
  return {
    mock: {
      npm: "@ai-sdk/openai-compatible",
      name: "Mock",
      options: { baseURL, apiKey: "x" },
      models,
    },
  }
}

/**
 * The host installs `@opencode-ai/plugin` in the background into every config dir and, when any
 * plugin is configured, waits for that install before loading plugins. It skips a dir whose
 * `node_modules/` exists and whose package-lock.json lists, under packages[""], every dependency
 * named in package.json plus `@opencode-ai/plugin`. Seeding that makes boot offline-safe.
 * The package itself is linked from this repo so files in `.opencode/plugins/` can import it.
 */
export function seedConfigDir(dir) {
  mkdirSync(join(dir, "node_modules", "@opencode-ai"), { recursive: true })
  const deps = { "@opencode-ai/plugin": HOST_VERSION }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ dependencies: deps }, null, 2)}\n`)
  writeFileSync(
    join(dir, "package-lock.json"),
    `${JSON.stringify({ name: "opencode", lockfileVersion: 3, requires: true, packages: { "": { dependencies: deps } } }, null, 2)}\n`,
  )
  const link = join(dir, "node_modules", "@opencode-ai", "plugin")
  const source = join(repoRoot, "node_modules", "@opencode-ai", "plugin")
  if (!existsSync(link) && existsSync(source)) symlinkSync(source, link, "dir")
}

function which(cmd) {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" })
  return r.status === 0 ? r.stdout.trim() : undefined
}

function git(cwd, ...args) {
  const r = spawnSync(
    "git",
    [
      "-c",
      "user.name=sandbox",
      "-c",
      "user.email=sandbox@localhost",
      "-c",
      "init.defaultBranch=main",
      ...args,
    ],
    { cwd, encoding: "utf8" },
  )
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`)
}

/**
 * Create the sandbox directories. `dataDir` / `projectDir` may be passed to reuse them across two
 * host processes (resume tests); reused dirs are never deleted by stop().
 */
export function makeSandbox({ dataDir, projectDir, seed = true, seedProject = true } = {}) {
  const root = mkdtempSync(join(tmpdir(), "octodo-host-"))
  const dirs = {
    root,
    home: join(root, "home"),
    xdgConfig: join(root, "config"),
    xdgData: dataDir ?? join(root, "data"),
    xdgCache: join(root, "cache"),
    xdgState: join(root, "state"),
    tmp: join(root, "tmp"),
    project: projectDir ?? join(root, "project"),
    logs: join(root, "logs"),
  }
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true })
  dirs.config = join(dirs.xdgConfig, "opencode")
  dirs.data = join(dirs.xdgData, "opencode")
  mkdirSync(dirs.config, { recursive: true })
  dirs.projectConfig = join(dirs.project, ".opencode")
  if (seed) seedConfigDir(dirs.config)
  makeProjectDir(dirs.project, { seed: seed && seedProject })
  return { dirs }
}

/**
 * A project folder as the host sees one: a git repository with one commit, and (seed) a seeded
 * `.opencode/`. A running host serves other project folders than its own by the `directory` query.
 */
export function makeProjectDir(dir, { seed = true } = {}) {
  mkdirSync(dir, { recursive: true })
  if (!existsSync(join(dir, ".git"))) {
    git(dir, "init", "-q")
    git(dir, "commit", "-q", "--allow-empty", "-m", "start")
  }
  if (seed) {
    mkdirSync(join(dir, ".opencode"), { recursive: true })
    seedConfigDir(join(dir, ".opencode"))
  }
}

/** Remove a sandbox made by makeSandbox (reused data/project dirs outside it stay). */
export function removeSandbox(dirs) {
  rmSync(dirs.root, { recursive: true, force: true })
}

/** Environment for the host and for CLI calls (export, debug) against the same sandbox. */
export function sandboxEnv(dirs, extra = {}) {
  const path = [process.env.PATH ?? ""]
  // The host downloads ripgrep when `rg` is missing; an existing one on PATH avoids that.
  const rg = which("rg")
  if (rg) path.unshift(dirname(rg))
  return {
    PATH: path.join(":"),
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    XDG_STATE_HOME: dirs.xdgState,
    TMPDIR: dirs.tmp,
    TERM: "dumb",
    LANG: "C.UTF-8",
    ...QUIET_ENV,
    ...extra,
  }
}

/** Host config: the mock provider as default and small model, plus the caller's plugins. */
export function hostConfig({ modelUrl, plugins = [], configExtra = {} }) {
  const cfg = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: "mock/m",
    small_model: "mock/m",
    plugin: plugins,
    ...configExtra,
  }
  if (modelUrl) cfg.provider = { ...mockProvider(modelUrl), ...(configExtra.provider ?? {}) }
  return cfg
}

// Process groups started here; killed if this script exits or is interrupted before stop().
const live = new Set()
function killLive() {
  for (const pid of live) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {}
  }
}
process.once("exit", killLive)
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    killLive()
    // The once-listener is gone now, so re-raising gets the default behaviour.
    process.kill(process.pid, sig)
  })
}

/**
 * Spawn a server in its own process group, its output appended to `logFile` and kept; `stop()` ends the whole
 * group (SIGTERM, then SIGKILL after 5 s). The group is also killed if this script exits first.
 */
export function spawnServer(bin, args, { cwd, env, logFile }) {
  const child = spawn(bin, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  live.add(child.pid)
  const server = { child, exited: null, chunks: [] }
  server.exitPromise = new Promise((r) =>
    child.once("exit", (code, signal) => {
      server.exited = { code, signal }
      live.delete(child.pid)
      r(server.exited)
    }),
  )
  const onData = (d) => {
    const s = d.toString("utf8")
    server.chunks.push(s)
    appendFileSync(logFile, s)
  }
  child.stdout.on("data", onData)
  child.stderr.on("data", onData)
  server.log = () => server.chunks.join("")
  server.stop = async () => {
    if (server.exited) return server.exited
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {}
    const timer = new Promise((r) => setTimeout(() => r("timeout"), 5000))
    if ((await Promise.race([server.exitPromise, timer])) === "timeout") {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
      await server.exitPromise
    }
    // Children in the same group (ripgrep, shells) go too.
    try {
      process.kill(-child.pid, "SIGKILL")
    } catch {}
    return server.exited
  }
  return server
}

/**
 * The events a host's stream delivered, and `waitEvent(match, { since, timeoutMs })`: resolves with the first event
 * at index >= since that matches, rejects after timeoutMs. Call `push(event)` for each event as it arrives.
 */
export function eventLog() {
  const events = []
  const waiters = new Set()
  function waitEvent(match, { since = 0, timeoutMs = 60_000 } = {}) {
    return new Promise((resolveEvent, reject) => {
      let timer
      const check = () => {
        for (let i = since; i < events.length; i++) {
          if (match(events[i])) {
            clearTimeout(timer)
            waiters.delete(check)
            resolveEvent(events[i])
            return true
          }
        }
        return false
      }
      if (check()) return
      timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`no matching event within ${timeoutMs} ms`))
      }, timeoutMs)
      waiters.add(check)
    })
  }
  const push = (event) => {
    events.push(event)
    for (const w of waiters) w()
  }
  return { events, waitEvent, push }
}

/**
 * Start `opencode serve` on 127.0.0.1 with an OS-chosen port.
 * options: modelUrl (mock base URL ending in /v1), plugins (opencode.json `plugin` entries),
 * configExtra (merged into the config), env (extra env), dataDir / projectDir (reuse),
 * seed (pre-seed config dirs, default true), seedProject (also create and seed <project>/.opencode),
 * prepare(dirs) (called before the host starts), configVia ("file" | "env"), port, logLevel,
 * bootTimeoutMs, keep (leave the sandbox on stop).
 */
export async function startHost(options = {}) {
  const {
    modelUrl,
    plugins = [],
    configExtra = {},
    env = {},
    dataDir,
    projectDir,
    seed = true,
    seedProject = true,
    logLevel = "INFO",
    bootTimeoutMs = 60_000,
    keep = false,
    configVia = "file",
    port,
    prepare,
  } = options
  const started = Date.now()
  const { dirs } = makeSandbox({ dataDir, projectDir, seed, seedProject })
  const config = hostConfig({ modelUrl, plugins, configExtra })
  const extraEnv = { ...env }
  if (configVia === "env") extraEnv.OPENCODE_CONFIG_CONTENT = JSON.stringify(config)
  else writeFileSync(join(dirs.config, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`)
  // Last chance to lay out files (project sources, .opencode/ content) before the host starts.
  if (prepare) await prepare(dirs)
  const childEnv = sandboxEnv(dirs, extraEnv)
  const logFile = join(dirs.logs, "server.log")

  const server = spawnServer(
    OPENCODE_BIN,
    [
      "serve",
      "--hostname",
      "127.0.0.1",
      "--port",
      String(port ?? (await freePort())),
      "--print-logs",
      "--log-level",
      logLevel,
    ],
    { cwd: dirs.project, env: childEnv, logFile },
  )
  const { child, exitPromise } = server
  const logChunks = server.chunks
  const stopProcess = server.stop

  let url
  try {
    url = await new Promise((resolveUrl, reject) => {
      const t = setTimeout(
        () => reject(new Error(`host did not listen within ${bootTimeoutMs} ms`)),
        bootTimeoutMs,
      )
      const check = () => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logChunks.join(""))
        if (m) {
          clearTimeout(t)
          resolveUrl(m[1])
        }
      }
      child.stdout.on("data", check)
      child.stderr.on("data", check)
      exitPromise.then((e) => {
        clearTimeout(t)
        reject(new Error(`host exited early (${JSON.stringify(e)}): ${logChunks.join("").slice(-2000)}`))
      })
    })
  } catch (err) {
    await stopProcess()
    if (!keep) cleanup(dirs)
    throw err
  }
  const listeningMs = Date.now() - started

  const api = makeApi(url, dirs.project)
  const { events, waitEvent, push } = eventLog()
  const eventAbort = new AbortController()
  const streamDone = consumeEvents(url, dirs.project, eventAbort.signal, push).catch(() => {})

  // Ready = the instance for the project answered (config, plugins and commands loaded).
  try {
    const deadline = Date.now() + bootTimeoutMs
    for (;;) {
      try {
        await api.get("/command", { timeoutMs: Math.max(1000, deadline - Date.now()) })
        break
      } catch (err) {
        if (Date.now() > deadline || server.exited) throw err
        await sleep(200)
      }
    }
  } catch (err) {
    eventAbort.abort()
    await stopProcess()
    if (!keep) cleanup(dirs)
    throw new Error(`host not ready: ${err.message}\n${logChunks.join("").slice(-3000)}`)
  }
  const readyMs = Date.now() - started

  const host = {
    url,
    pid: child.pid,
    dirs,
    env: childEnv,
    config,
    events,
    timings: { listeningMs, readyMs },
    log: () => logChunks.join(""),
    waitEvent,
    api,
    ...sessionHelpers(api, events, waitEvent),
    /** `opencode export <id>`: the stored transcript as JSON. */
    exportSession(sessionID, { timeoutMs = 30_000 } = {}) {
      return runCli(["export", sessionID], { cwd: dirs.project, env: childEnv, timeoutMs, json: true })
    },
    /** Any other CLI call against the same sandbox (e.g. ["debug", "paths"]). */
    cli(args, { timeoutMs = 30_000, json = false } = {}) {
      return runCli(args, { cwd: dirs.project, env: childEnv, timeoutMs, json })
    },
    async stop({ keep: keepNow = keep } = {}) {
      eventAbort.abort()
      await Promise.race([streamDone, sleep(1000)])
      const result = await stopProcess()
      if (!keepNow) cleanup(dirs)
      return result
    },
  }
  return host
}

// Reused data/project dirs live outside the sandbox root, so removing the root never touches them.
function cleanup(dirs) {
  rmSync(dirs.root, { recursive: true, force: true })
}

/**
 * Thin JSON client; every call has a timeout (default 30 s). `headers` go on every call (OpenCode 2's password);
 * `unwrap` turns a parsed answer into what callers get (OpenCode 2 answers `{ data }`).
 */
export function makeApi(baseUrl, directory, { headers = {}, unwrap = (value) => value } = {}) {
  async function call(method, path, { body, query = {}, timeoutMs = 30_000, raw = false } = {}) {
    const u = new URL(path, baseUrl)
    if (directory && !("directory" in query)) u.searchParams.set("directory", directory)
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v))
    const res = await fetch(u, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await res.text()
    let value = text
    try {
      value = text ? JSON.parse(text) : undefined
    } catch {}
    if (raw) return { status: res.status, body: value }
    if (!res.ok) {
      const err = new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 500)}`)
      err.status = res.status
      err.body = value
      throw err
    }
    return unwrap(value)
  }
  return {
    call,
    get: (p, o) => call("GET", p, o),
    post: (p, body, o) => call("POST", p, { ...o, body }),
    patch: (p, body, o) => call("PATCH", p, { ...o, body }),
    del: (p, o) => call("DELETE", p, o),
  }
}

/**
 * Wait until the session is really done: not busy, and its last assistant message has
 * time.completed (seen twice in a row). After an abort or a provider error the host emits
 * session.idle before it stores the final assistant message, then idles again; a prompt sent
 * in between is stored but never run. `api` is any makeApi client, so a session of another
 * project folder (whose events this host's stream does not carry) can be waited for too.
 */
export async function waitSettled(api, id, { timeoutMs = 30_000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs
  let streak = 0
  while (Date.now() < deadline) {
    const st = await api.get("/session/status", { timeoutMs: 5000 }).catch(() => undefined)
    const idle = st && (!st[id] || st[id].type === "idle")
    let done = false
    if (idle) {
      const msgs = await api.get(`/session/${id}/message`, { timeoutMs: 10_000 }).catch(() => undefined)
      const lastAssistant = msgs?.filter((m) => m.info.role === "assistant").at(-1)
      done = !lastAssistant || Boolean(lastAssistant.info.time?.completed)
    }
    streak = done ? streak + 1 : 0
    if (streak >= 2) return
    await sleep(intervalMs)
  }
  throw new Error(`session ${id} did not settle within ${timeoutMs} ms`)
}

function textParts(input) {
  if (typeof input === "string") return [{ type: "text", text: input }]
  return input
}

function sessionHelpers(api, events, waitEvent) {
  const h = {
    createSession(body = {}, o) {
      return api.post("/session", body, o)
    },
    getSession(id, o) {
      return api.get(`/session/${id}`, o)
    },
    listSessions(o) {
      return api.get("/session", o)
    },
    children(id, o) {
      return api.get(`/session/${id}/children`, o)
    },
    /** Synchronous prompt: resolves with { info, parts } of the final assistant message. */
    sendMessage(id, input, { agent, model, variant, noReply, system, timeoutMs = 60_000 } = {}) {
      const body = { parts: textParts(input), agent, model, variant, noReply, system }
      return api.post(`/session/${id}/message`, body, { timeoutMs })
    },
    /** Fire-and-forget prompt (204). Use waitIdle(id, { since }) afterwards. */
    sendMessageAsync(id, input, { agent, model, variant, noReply, system, timeoutMs = 15_000 } = {}) {
      const body = { parts: textParts(input), agent, model, variant, noReply, system }
      return api.call("POST", `/session/${id}/prompt_async`, { body, timeoutMs, raw: true })
    },
    listMessages(id, o) {
      return api.get(`/session/${id}/message`, o)
    },
    status(o) {
      return api.get("/session/status", o)
    },
    /**
     * Wait for `session.idle` of this session among events at index >= since (take
     * `since = host.events.length` before the action). Falls back to polling /session/status.
     */
    async waitIdle(id, { since = 0, timeoutMs = 60_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      const viaEvent = waitEvent((e) => e.type === "session.idle" && e.properties?.sessionID === id, {
        since,
        timeoutMs,
      })
      let done = false
      const viaPoll = (async () => {
        // Only trust polling once the session has been seen busy after `since`.
        while (!done && Date.now() < deadline) {
          await sleep(500)
          const sawBusy = events
            .slice(since)
            .some((e) => e.type === "session.status" && e.properties?.sessionID === id)
          if (!sawBusy) continue
          const st = await api.get("/session/status", { timeoutMs: 5000 }).catch(() => undefined)
          if (st && (!st[id] || st[id].type === "idle")) return { type: "polled-idle" }
        }
        return new Promise(() => {})
      })()
      try {
        return await Promise.race([viaEvent, viaPoll])
      } finally {
        done = true
      }
    },
    waitSettled(id, o) {
      return waitSettled(api, id, o)
    },
    /** Async prompt, wait for idle and settle; resolves with the messages after the turn. */
    async turn(id, input, opts = {}) {
      const since = events.length
      const r = await h.sendMessageAsync(id, input, opts)
      if (r.status >= 300) throw new Error(`prompt_async -> ${r.status}: ${JSON.stringify(r.body)}`)
      await h.waitIdle(id, { since, timeoutMs: opts.idleTimeoutMs ?? 90_000 })
      if (opts.settle !== false) await h.waitSettled(id)
      return h.listMessages(id)
    },
    abort(id, o) {
      return api.post(`/session/${id}/abort`, undefined, o)
    },
    /** The host's /undo: POST /session/:id/revert {messageID, partID?}; resolves with the session. */
    revert(id, messageID, { partID, ...o } = {}) {
      return api.post(`/session/${id}/revert`, { messageID, ...(partID ? { partID } : {}) }, o)
    },
    /** The host's /redo back to the newest state: POST /session/:id/unrevert. */
    unrevert(id, o) {
      return api.post(`/session/${id}/unrevert`, undefined, o)
    },
    /** Compaction. Resolves when the host answers (the summary turn runs inside the call). */
    summarize(id, { providerID = "mock", modelID = "m", auto, timeoutMs = 60_000 } = {}) {
      return api.post(`/session/${id}/summarize`, { providerID, modelID, auto }, { timeoutMs })
    },
    listCommands(o) {
      return api.get("/command", o)
    },
    /** POST /session/:id/command; `model` here is the "provider/model" string form. */
    runCommand(id, command, args = "", { agent, model, variant, timeoutMs = 60_000, raw = false } = {}) {
      return api.call("POST", `/session/${id}/command`, {
        body: { command, arguments: args, agent, model, variant },
        timeoutMs,
        raw,
      })
    },
    listQuestions(o) {
      return api.get("/question", o)
    },
    listPermissions(o) {
      return api.get("/permission", o)
    },
    todos(id, o) {
      return api.get(`/session/${id}/todo`, o)
    },
  }
  return h
}

/** Read the SSE stream of /event and hand every parsed event to `onEvent`. */
async function consumeEvents(baseUrl, directory, signal, onEvent) {
  const u = new URL("/event", baseUrl)
  u.searchParams.set("directory", directory)
  const res = await fetch(u, { signal, headers: { accept: "text/event-stream" } })
  const decoder = new TextDecoder()
  let buf = ""
  for await (const piece of res.body) {
    buf += decoder.decode(piece, { stream: true })
    let idx = buf.indexOf("\n\n")
    while (idx !== -1) {
      const block = buf.slice(0, idx)
      buf = buf.slice(idx + 2)
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n")
      if (data) {
        try {
          const ev = JSON.parse(data)
          onEvent({ ...(ev.payload ?? ev), receivedAt: Date.now() })
        } catch {}
      }
      idx = buf.indexOf("\n\n")
    }
  }
}

/** Run the opencode CLI in the sandbox with a hard timeout (process group killed on expiry). */
export function runCli(args, { cwd, env, timeoutMs = 30_000, json = false }) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(OPENCODE_BIN, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    live.add(child.pid)
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => {
      out += d
    })
    child.stderr.on("data", (d) => {
      err += d
    })
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
      reject(new Error(`opencode ${args.join(" ")} timed out after ${timeoutMs} ms`))
    }, timeoutMs)
    child.once("exit", (code) => {
      clearTimeout(timer)
      live.delete(child.pid)
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
      if (code !== 0)
        return reject(new Error(`opencode ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`))
      if (!json) return resolveRun(out)
      const start = out.indexOf("{")
      try {
        resolveRun(JSON.parse(out.slice(start)))
      } catch (e) {
        reject(
          new Error(`opencode ${args.join(" ")}: output is not JSON (${e.message}): ${out.slice(0, 500)}`),
        )
      }
    })
  })
}

/**
 * `--port 0` makes the host try 4096 first, which collides between parallel runs: ask the OS
 * for a free loopback port instead.
 */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address()
      srv.close(() => resolvePort(port))
    })
  })
}
