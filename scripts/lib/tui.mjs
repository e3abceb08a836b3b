// Drives the real OpenCode TUI inside tmux for end-to-end checks of the TUI plugin: starts it in a
// sandbox (own HOME and XDG dirs, tui.json listing our plugin), waits for the prompt, sends keys,
// and reads the screen back as text plus per-cell colours so a test can find the sidebar and
// check what our block painted. Every wait is bounded; stop() removes the private tmux server and
// the TUI's process group.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { hostConfig, makeSandbox, OPENCODE_BIN, sandboxEnv } from "./host.mjs"
import { OPENCODE2_BIN } from "./host2.mjs"
import { sleep } from "./wait.mjs"

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
/** The built TUI entry of this package, as tui.json lists a local plugin (an absolute path). */
export const TUI_ENTRY = join(repoRoot, "dist", "tui.mjs")
/** The built server entry, as opencode.json lists a local plugin. */
export const SERVER_ENTRY = join(repoRoot, "dist", "server.mjs")
/** The core's text width (src/core/list/text-width.ts), built beside the entries: cells are read as the plugin counts them. */
const TEXT_WIDTH = join(repoRoot, "dist", "text-width.mjs")
if (!existsSync(TEXT_WIDTH)) throw new Error(`${TEXT_WIDTH} is missing; run \`npm run build\` first.`)
const { charWidth } = await import(pathToFileURL(TEXT_WIDTH).href)

/** The plan the scripted model writes with its first todo call: 2 phases, 5 tasks. */
export const SAMPLE_PLAN = [
  { phase: "Design", items: ["Sketch the data model", "Write the parser"] },
  { phase: "Build", items: ["Wire the sidebar", "Add the dialog", "Ship the package"] },
]

/**
 * A scripted model for the TUI checks, deciding from request structure only (never from plugin
 * text): with no todo result in the history yet it calls `todo` init with SAMPLE_PLAN; after one
 * it marks the first task done; after that it answers with a short text. Tool-less requests
 * (title) fall through to the mock's defaults.
 */
export function todoConversation() {
  return (_body, info) => {
    if (info.kind !== "main") return undefined
    if (!info.toolNames.includes("todo")) return { text: "The todo tool was not offered." }
    const todoResults = info.toolResults.filter((r) => r.name === "todo").length
    if (todoResults === 0) return { toolCalls: [{ name: "todo", args: { op: "init", list: SAMPLE_PLAN } }] }
    if (todoResults === 1)
      return { toolCalls: [{ name: "todo", args: { op: "done", task: SAMPLE_PLAN[0].items[0] } }] }
    return { text: "First task done; the parser is next." }
  }
}

let socketCounter = 0
const liveSockets = new Set()
process.once("exit", () => {
  for (const { socket, panePid, socketPath } of liveSockets) {
    spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" })
    killGroup(panePid)
    removeSocket(socketPath)
  }
})

/** Is tmux on PATH? (CI: `apt-get update && apt-get install -y tmux`.) */
export function hasTmux() {
  return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0
}

function killGroup(pid) {
  if (!pid) return
  try {
    process.kill(-pid, "SIGKILL")
  } catch {}
}

// kill-server can leave the socket file behind; only ever remove our own private socket.
function removeSocket(path) {
  if (path && /octodo-tui-\d+-\d+$/.test(path)) rmSync(path, { force: true })
}

function shellQuote(value) {
  return `'${String(value).replaceAll("'", `'\\''`)}'`
}

/**
 * Start the TUI in tmux.
 * options:
 *   modelUrl     scripted model base URL (ends in /v1); local mode writes the provider config
 *   tuiPlugins   tui.json `plugin` entries (default: [TUI_ENTRY]); strings or [spec, options]
 *   serverPlugins opencode.json `plugin` entries (local mode)
 *   configExtra  merged into opencode.json (local mode)
 *   tuiConfig    extra tui.json keys (theme, keybinds...)
 *   attachTo     a host from host.mjs startHost(): run `opencode attach <url>` in its sandbox
 *                instead of a TUI with its own server
 *   host2        a host from host2.mjs startHost2(): run OpenCode 2's TUI against it (`opencode --server
 *                <url> <project>`) in its sandbox and environment; OpenCode 2 has no tui.json: its TUI loads
 *                the TUI half of each plugin the server lists, so tuiPlugins and tuiConfig are not used
 *   args         extra CLI args (e.g. ["--session", id])
 *   cols, rows   terminal size (default 200x50; the sidebar needs more than 120 columns)
 *   env          extra environment for the TUI process
 *   recordOutput keep the raw bytes the TUI writes (tmux pipe-pane) for output()/clipboard()
 *   keep         leave the sandbox on disk after stop()
 *   prepare      prepare(dirs, env): last step before the TUI starts, after the config files are written
 */
export async function startTui(options = {}) {
  const {
    modelUrl,
    tuiPlugins = [TUI_ENTRY],
    serverPlugins = [],
    configExtra = {},
    tuiConfig = {},
    attachTo,
    host2,
    args = [],
    cols = 200,
    rows = 50,
    env = {},
    recordOutput = false,
    keep = false,
    prepare,
  } = options
  if (!hasTmux()) throw new Error("tmux is not installed (apt-get install -y tmux)")
  for (const item of tuiPlugins) {
    const spec = Array.isArray(item) ? item[0] : item
    if (typeof spec === "string" && spec.startsWith("/") && !existsSync(spec)) {
      throw new Error(`TUI plugin ${spec} does not exist (run npm run build first)`)
    }
  }

  let dirs
  let baseEnv
  let ownSandbox = false
  if (host2) {
    dirs = host2.dirs
    baseEnv = host2.env
  } else if (attachTo) {
    dirs = attachTo.dirs
    baseEnv = attachTo.env
  } else {
    dirs = makeSandbox().dirs
    ownSandbox = true
    const cfg = hostConfig({ modelUrl, plugins: serverPlugins, configExtra })
    writeFileSync(join(dirs.config, "opencode.json"), `${JSON.stringify(cfg, null, 2)}\n`)
    baseEnv = sandboxEnv(dirs)
  }
  if (!host2) {
    // Global tui.json of the sandbox: the same place a user's ~/.config/opencode/tui.json lives.
    mkdirSync(dirs.config, { recursive: true })
    const tuiJson = { $schema: "https://opencode.ai/tui.json", plugin: tuiPlugins, ...tuiConfig }
    writeFileSync(join(dirs.config, "tui.json"), `${JSON.stringify(tuiJson, null, 2)}\n`)
  }

  const childEnv = { ...baseEnv, TERM: "xterm-256color", COLORTERM: "truecolor", ...env }
  if (prepare) {
    try {
      await prepare(dirs, childEnv)
    } catch (error) {
      if (ownSandbox && !keep) rmSync(dirs.root, { recursive: true, force: true })
      throw error
    }
  }
  const cliArgs = host2
    ? ["--server", host2.url, ...args, dirs.project]
    : attachTo
      ? ["attach", attachTo.url, "--dir", dirs.project, ...args]
      : [...args]
  const bin = host2 ? OPENCODE2_BIN : OPENCODE_BIN
  const stderrFile = join(dirs.logs, `tui-${Date.now()}.err`)
  // env -i: the pane sees only the sandbox environment, never the caller's own OpenCode setup.
  const envPairs = Object.entries(childEnv).map(([k, v]) => shellQuote(`${k}=${v}`))
  const command = `exec env -i ${envPairs.join(" ")} ${[bin, ...cliArgs].map(shellQuote).join(" ")} 2>${shellQuote(stderrFile)}`

  socketCounter += 1
  const socket = `octodo-tui-${process.pid}-${socketCounter}`
  const target = "tui"
  const tmux = (...a) => spawnSync("tmux", ["-L", socket, ...a], { encoding: "utf8", timeout: 10_000 })
  const made = tmux(
    "-f",
    "/dev/null",
    "new-session",
    "-d",
    "-s",
    target,
    "-x",
    String(cols),
    "-y",
    String(rows),
    "-c",
    dirs.project,
    command,
  )
  if (made.status !== 0) throw new Error(`tmux new-session failed: ${made.stderr}`)
  tmux("set-option", "-t", target, "remain-on-exit", "on")
  // A plain OSC 52 lands in a tmux paste buffer with this on. OpenTUI notices tmux and wraps its
  // OSC 52 in a DCS passthrough instead, which tmux does not buffer: clipboard() then reads the
  // recorded output (recordOutput: true).
  tmux("set-option", "-s", "set-clipboard", "on")
  const panePid =
    Number(tmux("display-message", "-p", "-t", target, "#{pane_pid}").stdout.trim()) || undefined
  const socketPath = tmux("display-message", "-p", "#{socket_path}").stdout.trim()
  const outputFile = join(dirs.logs, `tui-${Date.now()}.out`)
  if (recordOutput) tmux("pipe-pane", "-O", "-t", target, `cat >> ${shellQuote(outputFile)}`)
  const entry = { socket, panePid, socketPath }
  liveSockets.add(entry)
  const started = Date.now()

  function paneDead() {
    return tmux("display-message", "-p", "-t", target, "#{pane_dead}").stdout.trim() === "1"
  }

  /** The current screen: `text` (one string per row, full width) and `cells` with colours. */
  function capture() {
    const out = tmux("capture-pane", "-p", "-e", "-N", "-t", target)
    if (out.status !== 0) {
      const err = existsSync(stderrFile) ? readFileSync(stderrFile, "utf8").slice(-2000) : ""
      throw new Error(`tmux capture-pane failed (TUI gone?): ${out.stderr}\n${err}`)
    }
    return parseScreen(out.stdout, cols, rows)
  }

  /**
   * Poll the screen until `match` (RegExp, string, or fn(screen) => boolean) holds.
   * Resolves with the screen; rejects with the last screen in the message on timeout.
   */
  async function waitFor(match, { timeoutMs = 30_000, intervalMs = 200 } = {}) {
    const test =
      typeof match === "function"
        ? match
        : match instanceof RegExp
          ? (s) => match.test(s.text.join("\n"))
          : (s) => s.text.join("\n").includes(match)
    const deadline = Date.now() + timeoutMs
    let last
    for (;;) {
      last = capture()
      if (test(last)) return last
      if (paneDead()) throw new Error(`TUI exited while waiting for ${match}\n${screenText(last)}`)
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${match}\n${screenText(last)}`)
      }
      await sleep(intervalMs)
    }
  }

  /**
   * Wait until the prompt can take keys: the agent/model line is painted and the screen has not
   * changed for `settleMs`. Keys sent before this are lost.
   */
  async function waitReady({ timeoutMs = 90_000, settleMs = 1000 } = {}) {
    await waitFor((s) => /Ask anything|esc interrupt|ctrl\+p commands/.test(s.text.join("\n")), { timeoutMs })
    return settle({ settleMs, timeoutMs })
  }

  /** Wait until two captures `settleMs` apart are identical; resolves with the screen. */
  async function settle({ settleMs = 500, timeoutMs = 15_000 } = {}) {
    const deadline = Date.now() + timeoutMs
    let prev = screenText(capture())
    for (;;) {
      await sleep(settleMs)
      const now = capture()
      const text = screenText(now)
      if (text === prev || Date.now() > deadline) return now
      prev = text
    }
  }

  /** Type literal text (no key names interpreted). */
  function type(text) {
    const r = tmux("send-keys", "-t", target, "-l", "--", text)
    if (r.status !== 0) throw new Error(`tmux send-keys failed: ${r.stderr}`)
  }

  /** Press tmux key names: "Enter", "Escape", "Up", "Down", "Tab", "C-p", "BSpace"... */
  function press(...keys) {
    const r = tmux("send-keys", "-t", target, ...keys)
    if (r.status !== 0) throw new Error(`tmux send-keys failed: ${r.stderr}`)
  }

  /** Type a message and press Enter. */
  async function submit(text, { pauseMs = 150 } = {}) {
    type(text)
    await sleep(pauseMs)
    press("Enter")
  }

  /**
   * Run a slash command the way a user does: type `/name`, wait until the autocomplete lists it
   * (the name shows on a second row besides the prompt), press Enter. Enter picks the highlighted
   * autocomplete row, so with two `/name` entries (TUI command and server command) the first wins.
   */
  async function slash(name, { timeoutMs = 10_000 } = {}) {
    type(`/${name}`)
    const word = new RegExp(`/${escapeRegExp(name)}(\\s|$)`)
    await waitFor((s) => s.text.filter((l) => word.test(l)).length >= 2, { timeoutMs })
    await sleep(150)
    press("Enter")
  }

  async function stop({ keep: keepNow = keep } = {}) {
    tmux("kill-server")
    killGroup(panePid)
    removeSocket(socketPath)
    liveSockets.delete(entry)
    if (ownSandbox && !keepNow) rmSync(dirs.root, { recursive: true, force: true })
  }

  return {
    socket,
    target,
    dirs,
    env: childEnv,
    stderrFile,
    cols,
    rows,
    startedAt: started,
    capture,
    waitFor,
    waitReady,
    settle,
    type,
    press,
    submit,
    slash,
    sidebar: (screen) => findSidebar(screen ?? capture()),
    /** Save the screen (current one unless given) as plain text; returns it. */
    save(file, screen) {
      const s = screen ?? capture()
      writeFileSync(file, `${screenText(s)}\n`)
      return s
    },
    paneDead,
    /** Raw bytes the TUI wrote so far (needs recordOutput). */
    output() {
      return recordOutput && existsSync(outputFile) ? readFileSync(outputFile, "latin1") : ""
    },
    /**
     * What the app last copied with OSC 52: the tmux paste buffer when tmux took it, else the
     * newest OSC 52 sequence in the recorded output (wrapped for tmux or not). "" when none.
     */
    clipboard() {
      const r = tmux("show-buffer")
      if (r.status === 0 && r.stdout) return r.stdout
      const raw = recordOutput && existsSync(outputFile) ? readFileSync(outputFile, "latin1") : ""
      const all = [...raw.matchAll(/\x1b+\]52;[a-z0-9]*;([A-Za-z0-9+/=]*)/g)]
      const last = all.at(-1)
      return last ? Buffer.from(last[1], "base64").toString("utf8") : ""
    },
    /** Raw access to this TUI's private tmux server, e.g. tmux("resize-window", "-x", "100"). */
    tmux,
    stop,
  }
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}

/** The screen rows joined, trailing spaces removed. */
export function screenText(screen) {
  return screen.text.map((l) => l.trimEnd()).join("\n")
}

// ---- screen model -------------------------------------------------------------------------

const BASIC = [
  [0, 0, 0],
  [205, 0, 0],
  [0, 205, 0],
  [205, 205, 0],
  [0, 0, 238],
  [205, 0, 205],
  [0, 205, 205],
  [229, 229, 229],
  [127, 127, 127],
  [255, 0, 0],
  [0, 255, 0],
  [255, 255, 0],
  [92, 92, 255],
  [255, 0, 255],
  [0, 255, 255],
  [255, 255, 255],
]

function color256(n) {
  if (n < 16) return BASIC[n]
  if (n < 232) {
    const i = n - 16
    const step = [0, 95, 135, 175, 215, 255]
    return [step[Math.floor(i / 36)], step[Math.floor(i / 6) % 6], step[i % 6]]
  }
  const g = 8 + (n - 232) * 10
  return [g, g, g]
}

function hex([r, g, b]) {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`
}

/**
 * Parse `tmux capture-pane -p -e -N` output into rows of cells { ch, fg, bg, bold }.
 * Colours are "#rrggbb" or null (terminal default). tmux carries SGR state across lines.
 */
export function parseScreen(raw, cols, rows) {
  const lines = raw.replace(/\n$/, "").split("\n")
  const state = { fg: null, bg: null, bold: false }
  const cells = []
  for (const line of lines) {
    const row = []
    let i = 0
    while (i < line.length) {
      const c = line[i]
      if (c === "\x1b") {
        const csi = /^\x1b\[([0-9;:]*)([A-Za-z])/.exec(line.slice(i))
        if (csi) {
          if (csi[2] === "m") applySgr(state, csi[1])
          i += csi[0].length
          continue
        }
        const osc = /^\x1b\][^\x07\x1b]*(\x07|\x1b\\)/.exec(line.slice(i))
        i += osc ? osc[0].length : 1
        continue
      }
      const cp = line.codePointAt(i)
      const ch = String.fromCodePoint(cp)
      i += ch.length
      const w = charWidth(cp)
      if (w === 0) {
        if (row.length) row[row.length - 1].ch += ch
        continue
      }
      row.push({ ch, fg: state.fg, bg: state.bg, bold: state.bold })
      if (w === 2) row.push({ ch: "", fg: state.fg, bg: state.bg, bold: state.bold, wide: true })
    }
    while (row.length < cols) row.push({ ch: " ", fg: state.fg, bg: state.bg, bold: false })
    cells.push(row.slice(0, cols))
  }
  while (cells.length < rows)
    cells.push(Array.from({ length: cols }, () => ({ ch: " ", fg: null, bg: null })))
  const text = cells.map((row) => row.map((cell) => cell.ch).join(""))
  return { cols, rows, cells, text }
}

function applySgr(state, params) {
  const p = params === "" ? [0] : params.split(/[;:]/).map((x) => (x === "" ? 0 : Number(x)))
  for (let k = 0; k < p.length; k++) {
    const v = p[k]
    if (v === 0) {
      state.fg = null
      state.bg = null
      state.bold = false
    } else if (v === 1) state.bold = true
    else if (v === 22) state.bold = false
    else if (v === 39) state.fg = null
    else if (v === 49) state.bg = null
    else if (v >= 30 && v <= 37) state.fg = hex(BASIC[v - 30])
    else if (v >= 90 && v <= 97) state.fg = hex(BASIC[v - 90 + 8])
    else if (v >= 40 && v <= 47) state.bg = hex(BASIC[v - 40])
    else if (v >= 100 && v <= 107) state.bg = hex(BASIC[v - 100 + 8])
    else if (v === 38 || v === 48) {
      const key = v === 38 ? "fg" : "bg"
      if (p[k + 1] === 2) {
        state[key] = hex([p[k + 2] ?? 0, p[k + 3] ?? 0, p[k + 4] ?? 0])
        k += 4
      } else if (p[k + 1] === 5) {
        state[key] = hex(color256(p[k + 2] ?? 0))
        k += 2
      }
    }
  }
}

/**
 * Find the session sidebar: a panel on the right whose background differs from the message
 * area and runs to the right edge. Returns null when there is none (home screen, narrow window).
 * { panelLeft, left, width, background, lines: string[] (trimmed right), rows: [{ y, text, cells }] }
 * `left` is the first column any sidebar row uses (panel padding skipped).
 */
export function findSidebar(screen) {
  const { cells, cols } = screen
  const votes = new Map()
  for (const row of cells) {
    // The last background change in the row, if the colour then holds to the right edge.
    let edge = -1
    for (let x = cols - 1; x > 0; x--) {
      if (row[x].bg !== row[x - 1].bg) {
        edge = x
        break
      }
    }
    if (edge <= cols / 2 || row[edge].bg === null) continue
    const key = `${edge}|${row[edge].bg}`
    votes.set(key, (votes.get(key) ?? 0) + 1)
  }
  let best
  for (const [key, n] of votes) if (!best || n > best.n) best = { key, n }
  if (!best || best.n < Math.max(3, Math.floor(cells.length / 3))) return null
  const [edgeText, background] = best.key.split("|")
  const panelLeft = Number(edgeText)
  // Rows of the panel: those whose cells from panelLeft to the right edge share the panel colour.
  const rows = []
  for (let y = 0; y < cells.length; y++) {
    const slice = cells[y].slice(panelLeft)
    if (!slice.every((c) => c.bg === background)) continue
    rows.push({ y, cells: slice, text: slice.map((c) => c.ch).join("") })
  }
  let pad = Infinity
  for (const r of rows) {
    const m = /\S/.exec(r.text)
    if (m) pad = Math.min(pad, m.index)
  }
  if (!Number.isFinite(pad)) pad = 0
  const left = panelLeft + pad
  const out = rows.map((r) => ({ y: r.y, text: r.text.slice(pad).trimEnd(), cells: r.cells.slice(pad) }))
  return {
    panelLeft,
    left,
    width: cols - panelLeft,
    background,
    lines: out.map((r) => r.text),
    rows: out,
  }
}

/**
 * The lines of one sidebar block: from the row whose text starts with `title` up to the next
 * blank row. Each row keeps its cells so callers can check colours (e.g. row.cells[0].fg).
 */
export function sidebarBlock(sidebar, title) {
  if (!sidebar) return null
  const start = sidebar.rows.findIndex((r) => r.text.startsWith(title))
  if (start < 0) return null
  const rows = []
  for (let i = start; i < sidebar.rows.length; i++) {
    const r = sidebar.rows[i]
    if (i > start && r.text.trim() === "") break
    if (i > start && r.y !== sidebar.rows[i - 1].y + 1) break
    rows.push(r)
  }
  return { lines: rows.map((r) => r.text), rows }
}
