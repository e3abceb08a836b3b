// Owns asking an installed OpenCode 2 whether it loads this package, the way the host itself
// reports it: `opencode serve` booted privately (127.0.0.1, a free port, a one-off password) in
// the caller's own environment and folder, then its plugin list (`GET /api/plugin`) and command
// list (`GET /api/command`), then the server stopped. `opencode plugin list` would say the same,
// but it goes through OpenCode's background service, which it starts and leaves running.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createServer } from "node:net"
import { dirname } from "node:path"

/** A port nothing listens on now. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolvePort(port))
    })
  })
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Boots `bin serve` in `cwd` with `env` and reads what it loaded. Resolves with
 * { plugins, commands } (the host's own lists, each item as the host sends it) once the plugin
 * list holds the plugin named `id` or the host's builtins have settled without it; or with
 * { error } (a sentence) when the host exited or did not answer within `timeoutMs`.
 */
export async function loadedPlugins({ bin, cwd, env, id, timeoutMs = 90_000 }) {
  const password = randomBytes(24).toString("hex")
  const port = await freePort()
  const auth = `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`
  const child = spawn(bin, ["serve", "--hostname", "127.0.0.1", "--port", String(port)], {
    cwd,
    env: { ...env, OPENCODE_SERVER_PASSWORD: password, OPENCODE_DISABLE_AUTOUPDATE: "1" },
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  })
  let stderr = ""
  child.stderr.on("data", (d) => {
    stderr = (stderr + d.toString("utf8")).slice(-2000)
  })
  let exited = null
  const exit = new Promise((r) =>
    child.once("exit", (code, signal) => {
      exited = { code, signal }
      r()
    }),
  )
  child.once("error", (error) => {
    exited = { error }
  })
  const get = async (path) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      headers: { authorization: auth },
      signal: AbortSignal.timeout(5000),
    })
    if (!res.ok) throw new Error(`${path} answered ${res.status}`)
    const body = await res.json()
    return Array.isArray(body?.data) ? body.data : []
  }
  try {
    const deadline = Date.now() + timeoutMs
    // The list fills once the host has activated its plugins (builtins and discovered ones
    // together); a short grace after that covers one more activation round.
    let settledAt
    for (;;) {
      if (exited) {
        const why = exited.error ? exited.error.message : `exit ${exited.code ?? exited.signal}`
        return {
          error: `\`${bin} serve\` stopped (${why})${stderr ? `: ${stderr.trim().split("\n").at(-1)}` : ""}`,
        }
      }
      let plugins
      try {
        plugins = await get("/api/plugin")
      } catch {}
      if (plugins?.some((p) => p.id === id || p.state?.status === "failed")) {
        return { plugins, commands: await get("/api/command").catch(() => []) }
      }
      if (plugins && plugins.length > 0) settledAt ??= Date.now()
      if (settledAt !== undefined && Date.now() - settledAt > 3000)
        return { plugins, commands: await get("/api/command").catch(() => []) }
      if (Date.now() > deadline)
        return { error: `\`${bin} serve\` did not answer within ${timeoutMs / 1000} s` }
      await sleep(300)
    }
  } finally {
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {}
    await Promise.race([exit, sleep(5000)])
    try {
      process.kill(-child.pid, "SIGKILL")
    } catch {}
  }
}

/**
 * What the host's lists say of the plugin folder `folder`: { ok: true, entry, command } when an
 * active plugin loaded from it, else { ok: false, reason } with the host's own error when it has one.
 */
export function judgeListing({ plugins, commands }, { folder, id, command }) {
  const fromFolder = (p) =>
    p.source?.type === "local" &&
    typeof p.source.path === "string" &&
    (p.source.path === folder || dirname(p.source.path) === folder)
  const entry = plugins.find(fromFolder)
  if (!entry) {
    const elsewhere = plugins.find((p) => p.id === id)
    const where = elsewhere
      ? ` (it loads one from ${JSON.stringify(elsewhere.source?.path ?? elsewhere.source?.target)})`
      : ""
    return { ok: false, reason: `does not list ${id} from ${folder}${where}` }
  }
  if (entry.state?.status !== "active") {
    const error = entry.state?.error ? `: ${JSON.stringify(entry.state.error)}` : ""
    return { ok: false, reason: `did not load ${folder} (${entry.state?.status ?? "no status"}${error})` }
  }
  return { ok: true, entry, command: commands.some((c) => c.name === command) }
}
