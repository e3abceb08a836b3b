// What the sidebar check reads off the real TUI's screen and how it drives the TUI like a person: the
// sidebar's Todo block, the compact line, the sidebar's shown state, the /todo dialog and typed verbs, and
// the stored record. Over whichever TUI the check runs now (`currentTui()`), so one set serves every run.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { sidebarBlock } from "./tui.mjs"
import { sleep } from "./wait.mjs"

/** fg colour of the first non-blank cell of the row whose text contains `text`. */
export function glyphColor(block, text) {
  const row = block.rows.find((r) => r.text.includes(text))
  const cell = row?.cells.find((c) => c.ch.trim() !== "")
  return cell?.fg
}

/** The compact line: the last non-blank screen row when it reads "<glyph> … · n/m". */
export function compactRow(screen) {
  for (let y = screen.rows - 1; y >= 0; y--) {
    const text = screen.text[y].trimEnd()
    if (text.trim() === "") continue
    return /^\s*[▶○⊘✓] .*(· )?\d+\/\d+/.test(text) ? { y, text } : undefined
  }
  return undefined
}

/**
 * The compact line on OpenCode 2: the row just above the prompt box (the `session.composer.top` slot), when it
 * reads "<glyph> … · n/m". The box is the run of rows starting with "┃" that ends in its "╹▀" bottom edge.
 */
export function compactRow2(screen) {
  const edge = screen.text.findLastIndex((l) => /^\s*╹▀/.test(l))
  if (edge < 0) return undefined
  let y = edge - 1
  while (y >= 0 && /^\s*┃/.test(screen.text[y])) y--
  const text = y >= 0 ? screen.text[y].trimEnd() : ""
  return /^\s*[▶○⊘✓] .*(· )?\d+\/\d+/.test(text) ? { y, text } : undefined
}

/**
 * The screen helpers over the TUI `currentTui()` returns when each is called. options: `compact` finds the
 * compact line (compactRow on 1.18, compactRow2 on OpenCode 2); `pickTypes`: choosing a slash command in the
 * autocomplete only types it into the prompt, so opening the dialog takes a second Enter (OpenCode 2).
 */
export function tuiScreen(currentTui, { compact = compactRow, pickTypes = false } = {}) {
  /** The Todo block of the sidebar on a screen, or undefined. */
  function todoBlock(screen) {
    return sidebarBlock(currentTui().sidebar(screen), "Todo") ?? undefined
  }

  function blockHas(pattern) {
    return (screen) => {
      const block = todoBlock(screen)
      return Boolean(block && pattern.test(block.lines.join("\n")))
    }
  }

  function compactHas(pattern) {
    return (screen) => {
      const row = compact(screen)
      return Boolean(row && pattern.test(row.text))
    }
  }

  /** Resizes the terminal; the TUI repaints on its own. */
  async function resize(cols, rows = 50) {
    currentTui().tmux("resize-window", "-t", currentTui().target, "-x", String(cols), "-y", String(rows))
    await sleep(500)
  }

  /**
   * Brings the sidebar to the wanted state with ctrl+x b when it differs (the host remembers a hidden
   * sidebar across widths, and an opened one even below 121 columns, as an overlay); resolves with the screen.
   */
  async function sidebarState(shown) {
    const now = await currentTui().settle({ settleMs: 700 })
    if ((compact(now) !== undefined) !== shown) return now
    currentTui().press("C-x", "b")
    return currentTui().waitFor((s) => (compact(s) === undefined) === shown, { timeoutMs: 10_000 })
  }

  /** Types `/todo`, waits for the autocomplete, presses Enter; resolves with the dialog's screen. */
  async function openTodo() {
    currentTui().type("/todo")
    await currentTui().waitFor((s) => s.text.filter((l) => /\/todo(\s|$)/.test(l)).length >= 2, {
      timeoutMs: 15_000,
    })
    await sleep(300)
    currentTui().press("Enter")
    if (pickTypes) {
      await sleep(400)
      currentTui().press("Enter")
    }
    return currentTui().waitFor(/Append a task…[\s\S]*Import from TODO\.md…/, { timeoutMs: 15_000 })
  }

  /**
   * Types `/todo <rest>` the way a person does (the name, a pause, a space, a pause, then the rest: in
   * a burst the autocomplete's hide path eats the slash word), waits until it shows, presses Enter; resolves with the time of Enter.
   */
  async function typeTodo(rest, { started = false } = {}) {
    if (!started) {
      currentTui().type("/todo")
      await sleep(600)
    }
    currentTui().type(" ")
    await sleep(600)
    currentTui().type(rest)
    await currentTui().waitFor(new RegExp(`/todo ${rest.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`), {
      timeoutMs: 20_000,
    })
    await sleep(300)
    const at = Date.now()
    currentTui().press("Enter")
    return at
  }

  /** Types into a dialog's filter and presses Enter on the first match; resolves with the time of Enter. */
  async function pick(text) {
    currentTui().type(text)
    await sleep(600)
    const at = Date.now()
    currentTui().press("Enter")
    return at
  }

  /** Opens /todo and picks a list entry by its title. */
  async function openEntry(title) {
    await openTodo()
    await pick(title)
  }

  /** The stored record of the (only) session, parsed; undefined when none. */
  function storedRecord() {
    const dir = join(currentTui().dirs.xdgData, "opencode", "plugin", "todo")
    if (!existsSync(dir)) return undefined
    const file = readdirSync(dir).find((f) => f.endsWith(".json"))
    return file ? JSON.parse(readFileSync(join(dir, file), "utf8")) : undefined
  }

  return {
    todoBlock,
    blockHas,
    compactHas,
    resize,
    sidebarState,
    openTodo,
    typeTodo,
    pick,
    openEntry,
    storedRecord,
  }
}
