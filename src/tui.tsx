// TUI side of the plugin: the sidebar block and the /todo dialog. A thin shell: the view models are
// src/core/sidebar-view.ts and src/core/dialog-model.ts, list changes go through src/actions.ts on the same per-session store the
// server uses. Only types come from @opencode-ai/plugin/tui (its value exports throw outside the
// host); solid-js and @opentui/solid are the host's own copies at run time.

import { spawnSync } from "node:child_process"
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import type { TuiPlugin, TuiPluginModule } from "@opencode-ai/plugin/tui"
import { createEffect, createMemo, createSignal, ErrorBoundary, For, on, type Setter, Show } from "solid-js"
import { type EditOutcome, exportList, readImport, replaceFromMarkdown, runUserOps } from "./actions.ts"
import { limitsOf, STORED_LIMITS } from "./core/config.ts"
import {
  actionOp,
  countsText,
  editorCommand,
  errorLine,
  type TaskAction,
  taskActions,
  taskEntries,
} from "./core/dialog-model.ts"
import { parseImport } from "./core/import.ts"
import { appendPhase, findTask, taskCount } from "./core/list.ts"
import { parseMarkdown, renderMarkdown } from "./core/markdown.ts"
import { parseSnapshot } from "./core/parse.ts"
import { fail, isRecord, ok, type Result } from "./core/result.ts"
import {
  DEFAULT_SIDEBAR_ROWS,
  SIDEBAR_WIDTH,
  type SidebarLine,
  sidebarModel,
  type Tone,
} from "./core/sidebar-view.ts"
import { latestToolList, REFRESH_COMMAND, refreshTarget, toolPartList } from "./core/tui-protocol.ts"
import type { Limits, Op, TaskStatus, TodoList } from "./core/types.ts"
import { PLUGIN_ID, preview } from "./core/words.ts"
import { stateDir, todoDir } from "./paths.ts"
import { loadSettings } from "./settings.ts"
import { createStore, type Store } from "./store/store.ts"

const OPEN_COMMAND = `${PLUGIN_ID}.open`

type Variant = "info" | "success" | "warning" | "error"

/** Options a tui.json entry may pass: `sidebarRows` is ours, the rest are todo.json settings. */
function splitOptions(options: unknown): { rows: number; rest: unknown } {
  if (!isRecord(options)) return { rows: DEFAULT_SIDEBAR_ROWS, rest: options }
  const { sidebarRows, ...rest } = options
  const rows =
    typeof sidebarRows === "number" && Number.isFinite(sidebarRows)
      ? Math.min(60, Math.max(3, Math.floor(sidebarRows)))
      : DEFAULT_SIDEBAR_ROWS
  return { rows, rest: Object.keys(rest).length > 0 ? rest : undefined }
}

function sameList(a: TodoList, b: TodoList): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

interface Tracked {
  readonly list: () => TodoList
  readonly set: Setter<TodoList>
  /** Bumped by every refresh; an older read that resolves late is dropped. */
  seq: number
}

const tui: TuiPlugin = async (api, options) => {
  const { rows: sidebarRows, rest } = splitOptions(options)
  const directory = (): string => api.state.path?.directory || process.cwd()
  const settings = await loadSettings({ directory: directory(), options: rest })
  if (!settings.config.enabled) return
  const limits: Limits = limitsOf(settings.config)

  const toast = (variant: Variant, text: string, title = "Todo") => {
    try {
      api.ui.toast({ variant, title, message: text, duration: variant === "error" ? 8000 : 4000 })
    } catch {
      // No toast support: nothing else to report through.
    }
  }

  const store: Store = createStore({
    dir: todoDir(),
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (text) => toast("warning", text),
  })

  // ---- where the list comes from -------------------------------------------------------------

  /**
   * Whether the store on this machine is the one the server writes: the server reports its state
   * folder and project folder; a TUI attached to a server elsewhere (or run with another environment)
   * sees different ones.
   */
  function storeShared(): boolean {
    try {
      const path = api.state.path as { state?: string; directory?: string } | undefined
      if (path?.state && resolve(path.state) !== resolve(stateDir())) return false
      if (path?.directory && !existsSync(path.directory)) return false
      return true
    } catch {
      return false
    }
  }

  /** Why this TUI cannot change lists, or undefined when it can. */
  function editProblem(): string | undefined {
    if (!storeShared())
      return "This TUI is attached to an OpenCode server whose todo storage is not on this machine: it can show the list but not change it. Use /todo <verb> instead (for example /todo done <task>), which runs on the server."
    let dir = store.dir
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
    try {
      accessSync(dir, constants.R_OK | constants.W_OK)
    } catch {
      return `The todo storage folder ${store.dir} is not writable from this TUI, so the list cannot be changed here. Use /todo <verb> instead, which runs on the server.`
    }
    return undefined
  }

  /** The newest list a completed todo tool call reported in this session (the host keeps the parts). */
  function listFromParts(session: string): TodoList | undefined {
    try {
      const parts: unknown[] = []
      for (const msg of api.state.session.messages(session)) parts.push(...api.state.part(msg.id))
      const raw = latestToolList(parts)
      if (raw === undefined) return undefined
      const parsed = parseSnapshot(raw, STORED_LIMITS)
      return parsed.ok ? parsed.value : undefined
    } catch {
      return undefined
    }
  }

  /** The session's list: the shared store when it holds a record, else the last todo tool result. */
  async function readList(session: string): Promise<TodoList> {
    if (storeShared()) {
      try {
        if ((await store.stamp(session)) !== undefined) {
          const snapshot = await store.read(session)
          if (snapshot.persisted) return snapshot.list
        }
      } catch {
        // Unreadable: fall back to what the tool calls reported.
      }
    }
    return listFromParts(session) ?? []
  }

  const tracked = new Map<string, Tracked>()

  function track(session: string): Tracked {
    let t = tracked.get(session)
    if (!t) {
      const [list, set] = createSignal<TodoList>([], { equals: sameList })
      t = { list, set, seq: 0 }
      tracked.set(session, t)
    }
    return t
  }

  /** Shows `known` at once when given, then rereads the list; the newest refresh wins. */
  function refresh(session: string, known?: TodoList): void {
    const t = track(session)
    const seq = ++t.seq
    if (known) t.set(known)
    readList(session).then(
      (list) => {
        if (seq === t.seq) t.set(list)
      },
      () => {},
    )
  }

  function refreshAll(): void {
    for (const session of tracked.keys()) refresh(session)
  }

  // ---- events --------------------------------------------------------------------------------

  const offs: (() => void)[] = []
  const listen = (register: () => () => void) => {
    try {
      offs.push(register())
    } catch {
      // An event type this host does not know: the other triggers still work.
    }
  }
  listen(() =>
    api.event.on("message.part.updated", (event) => {
      const part = event.properties.part
      const raw = toolPartList(part)
      if (raw === undefined || !tracked.has(part.sessionID)) return
      const parsed = parseSnapshot(raw, STORED_LIMITS)
      refresh(part.sessionID, parsed.ok ? parsed.value : undefined)
    }),
  )
  // A typed `/todo <verb>` runs in the server before its user message is stored, and ends with command.executed.
  listen(() =>
    api.event.on("command.executed", (event) => {
      if (event.properties.name === "todo" && tracked.has(event.properties.sessionID))
        refresh(event.properties.sessionID)
    }),
  )
  listen(() =>
    api.event.on("message.updated", (event) => {
      const { sessionID, info } = event.properties
      if (info.role === "user" && tracked.has(sessionID)) refresh(sessionID)
    }),
  )
  listen(() =>
    api.event.on("session.idle", (event) => {
      if (tracked.has(event.properties.sessionID)) refresh(event.properties.sessionID)
    }),
  )
  listen(() =>
    api.event.on("tui.command.execute", (event) => {
      const target = refreshTarget(event.properties.command)
      if (!target) return
      if ("all" in target) refreshAll()
      else if (tracked.has(target.session)) refresh(target.session)
    }),
  )

  // ---- sidebar -------------------------------------------------------------------------------

  function toneColor(tone: Tone) {
    const theme = api.theme.current
    switch (tone) {
      case "title":
      case "text":
        return theme.text
      case "in_progress":
        return theme.warning
      case "blocked":
      case "error":
        return theme.error
      case "completed":
        return theme.success
      default:
        return theme.textMuted
    }
  }

  function SidebarBlock(props: { sessionID: string }) {
    createEffect(
      on(
        () => props.sessionID,
        (session) => {
          if (session) refresh(session)
        },
      ),
    )
    const lines = createMemo((): SidebarLine[] | undefined => {
      try {
        const session = props.sessionID
        if (!session) return undefined
        return sidebarModel(track(session).list(), { maxRows: sidebarRows, width: SIDEBAR_WIDTH })
      } catch {
        return undefined
      }
    })
    return (
      <Show when={lines()}>
        {(shown: () => SidebarLine[]) => (
          <box>
            <For each={shown()}>
              {(line) => (
                <text wrapMode="none">
                  <For each={line.segments}>
                    {(segment) =>
                      segment.tone === "title" ? (
                        <span style={{ fg: toneColor(segment.tone), bold: true }}>{segment.text}</span>
                      ) : (
                        <span style={{ fg: toneColor(segment.tone) }}>{segment.text}</span>
                      )
                    }
                  </For>
                </text>
              )}
            </For>
          </box>
        )}
      </Show>
    )
  }

  api.slots.register({
    order: 350,
    slots: {
      sidebar_content(_ctx, props) {
        try {
          return (
            <ErrorBoundary fallback={() => null}>
              <SidebarBlock sessionID={props.session_id} />
            </ErrorBoundary>
          )
        } catch {
          return null
        }
      },
    },
  })

  // ---- the /todo dialog ----------------------------------------------------------------------

  function currentSession(): string | undefined {
    const route = api.route.current
    if (route.name !== "session") return undefined
    const id = (route.params as { sessionID?: unknown } | undefined)?.sessionID
    return typeof id === "string" && id ? id : undefined
  }

  /** Runs a dialog step started from a callback; whatever it throws becomes an error toast. */
  function safely(step: Promise<void>): void {
    step.catch((error) => {
      close()
      toast("error", message(error))
    })
  }

  function close(): void {
    try {
      api.ui.dialog.clear()
    } catch {
      // Already closed.
    }
  }

  /** Reports an edit's result, refreshes the views, and checks that the change reached the shared store. */
  async function finish(session: string, outcome: EditOutcome, done: string): Promise<void> {
    refresh(session, outcome.list)
    if (!outcome.ok) return toast("error", outcome.error)
    const snapshot = await store.read(session)
    if (!snapshot.persisted) {
      toast(
        "error",
        "The change could not be saved to the todo storage, so it exists only in this TUI and the agent will not see it.",
      )
      return
    }
    const lines = outcome.diff.lines
    const what = lines.length === 0 ? "Nothing changed." : lines.slice(0, 3).join("\n")
    const more = lines.length > 3 ? `\n… and ${lines.length - 3} more` : ""
    toast(
      lines.length === 0 ? "info" : "success",
      `${done}\n${what}${more}\nNow ${countsText(outcome.list)}.`,
    )
  }

  async function applyOps(session: string, ops: readonly Op[], done: string): Promise<void> {
    close()
    const problem = editProblem()
    if (problem) return toast("error", problem)
    try {
      await finish(session, await runUserOps(store, session, ops, limits, "record"), done)
    } catch (error) {
      toast("error", `The change failed: ${message(error)}`)
    }
  }

  async function applyMarkdown(session: string, markdown: string, done: string): Promise<void> {
    close()
    const problem = editProblem()
    if (problem) return toast("error", problem)
    try {
      await finish(session, await replaceFromMarkdown(store, session, markdown, limits, "record"), done)
    } catch (error) {
      toast("error", `The change failed: ${message(error)}`)
    }
  }

  type MenuItem = "append" | "edit" | "copy" | "export" | "import"
  const MENU: readonly { readonly item: MenuItem; readonly title: string; readonly description: string }[] = [
    { item: "append", title: "Append a task…", description: "add a task to a phase" },
    { item: "edit", title: "Edit as Markdown in $EDITOR…", description: "the whole list" },
    { item: "copy", title: "Copy as Markdown", description: "to the clipboard" },
    { item: "export", title: "Export to TODO.md…", description: "in the project folder" },
    { item: "import", title: "Import from TODO.md…", description: "replace the list" },
  ]

  async function openMain(): Promise<void> {
    const session = currentSession()
    if (!session) return toast("info", "Open a session first: each session has its own todo list.")
    const list = await readList(session)
    refresh(session, list)
    const tasks = taskEntries(list)
    const options = [
      ...tasks.map((task) => ({
        title: task.title,
        value: `task:${task.text}`,
        category: task.category,
        description: task.description,
      })),
      ...MENU.map((entry) => ({
        title: entry.title,
        value: `menu:${entry.item}`,
        category: "List",
        description: entry.description,
      })),
    ]
    api.ui.dialog.replace(() => (
      <api.ui.DialogSelect
        title={`Todo  ${countsText(list)}`}
        placeholder={tasks.length > 0 ? "Type to find a task" : "The list is empty"}
        options={options}
        onSelect={(option) => {
          const value = String(option.value)
          if (value.startsWith("task:")) safely(openTask(session, value.slice(5)))
          else safely(runMenu(session, value.slice(5) as MenuItem))
        }}
      />
    ))
  }

  async function runMenu(session: string, item: MenuItem): Promise<void> {
    try {
      if (item === "append") return openAppend(session)
      if (item === "edit") return await editInEditor(session)
      if (item === "copy") return await copyList(session)
      if (item === "export") return await exportToFile(session)
      return await importFromFile(session)
    } catch (error) {
      close()
      toast("error", message(error))
    }
  }

  async function openTask(session: string, text: string): Promise<void> {
    const list = await readList(session)
    const found = findTask(list, text)
    if (!found) {
      toast("warning", `"${preview(text)}" is no longer in the list.`)
      return openMain()
    }
    const status: TaskStatus = found.task.status
    api.ui.dialog.replace(() => (
      <api.ui.DialogSelect
        title={preview(text, 60)}
        placeholder="Choose an action"
        options={taskActions(status).map((entry) => ({ title: entry.title, value: entry.action }))}
        onSelect={(option) =>
          safely(runTaskAction(session, text, option.value as TaskAction, found.task.blocker))
        }
      />
    ))
  }

  async function runTaskAction(
    session: string,
    text: string,
    action: TaskAction,
    blocker: string | undefined,
  ): Promise<void> {
    const name = `"${preview(text)}"`
    if (action === "block") {
      api.ui.dialog.replace(() => (
        <api.ui.DialogPrompt
          title={`Why is ${preview(text, 40)} blocked?`}
          placeholder="Reason (optional)"
          value={blocker ?? ""}
          onConfirm={(reason) =>
            safely(applyOps(session, [actionOp("block", text, reason)], `Blocked ${name}.`))
          }
          onCancel={close}
        />
      ))
      return
    }
    if (action === "rm") {
      api.ui.dialog.replace(() => (
        <api.ui.DialogConfirm
          title="Remove this task?"
          message={`${name} will be removed from the list.`}
          onConfirm={() => safely(applyOps(session, [actionOp("rm", text)], `Removed ${name}.`))}
          onCancel={close}
        />
      ))
      return
    }
    const done: Record<Exclude<TaskAction, "block" | "rm">, string> = {
      start: `Started ${name}.`,
      done: `Marked ${name} done.`,
      drop: `Dropped ${name}.`,
      unblock: `Unblocked ${name}.`,
    }
    await applyOps(session, [actionOp(action, text)], done[action])
  }

  function openAppend(session: string): void {
    api.ui.dialog.replace(() => (
      <api.ui.DialogPrompt
        title="Append a task"
        placeholder="What needs doing?"
        onConfirm={(value) => {
          const text = value.trim()
          if (!text) {
            close()
            toast("warning", "No task text given; nothing was added.")
            return
          }
          safely(choosePhase(session, text))
        }}
        onCancel={close}
      />
    ))
  }

  const NEW_PHASE = "\u0000new"

  async function choosePhase(session: string, text: string): Promise<void> {
    const list = await readList(session)
    const current = appendPhase(list)
    if (list.length === 0) return promptPhase(session, text, current)
    api.ui.dialog.replace(() => (
      <api.ui.DialogSelect
        title={`Phase for "${preview(text, 40)}"`}
        options={[
          ...list.map((phase) => ({ title: phase.name, value: phase.name })),
          { title: "New phase…", value: NEW_PHASE },
        ]}
        current={current}
        onSelect={(option) => {
          const phase = String(option.value)
          if (phase === NEW_PHASE) promptPhase(session, text, "")
          else safely(appendTask(session, phase, text))
        }}
      />
    ))
  }

  function promptPhase(session: string, text: string, suggested: string): void {
    api.ui.dialog.replace(() => (
      <api.ui.DialogPrompt
        title="New phase name"
        placeholder="e.g. Tests"
        value={suggested}
        onConfirm={(value) => {
          const phase = value.trim()
          if (!phase) {
            close()
            toast("warning", "No phase name given; nothing was added.")
            return
          }
          safely(appendTask(session, phase, text))
        }}
        onCancel={close}
      />
    ))
  }

  function appendTask(session: string, phase: string, text: string): Promise<void> {
    return applyOps(
      session,
      [{ op: "append", phase, items: [text] }],
      `Added "${preview(text)}" to "${preview(phase)}".`,
    )
  }

  /** Runs $VISUAL/$EDITOR on `text` with the renderer suspended; returns the saved text. */
  function runEditor(text: string): Result<string> {
    const [command = "vi", ...args] = editorCommand(process.env)
    const folder = mkdtempSync(join(tmpdir(), "opencode-todo-"))
    const file = join(folder, "TODO.md")
    try {
      writeFileSync(file, text)
      const renderer = api.renderer
      renderer.suspend()
      let result: ReturnType<typeof spawnSync>
      try {
        result = spawnSync(command, [...args, file], { stdio: "inherit" })
      } finally {
        try {
          renderer.currentRenderBuffer.clear()
        } catch {
          // Older renderers repaint fully on resume anyway.
        }
        renderer.resume()
        renderer.requestRender()
      }
      if (result.error) return fail(`Could not run the editor "${command}": ${result.error.message}`)
      if (result.status !== 0)
        return fail(
          `The editor "${command}" exited with ${result.status ?? result.signal}; the list was not changed.`,
        )
      return ok(readFileSync(file, "utf8"))
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }

  async function editInEditor(session: string, draft?: string): Promise<void> {
    close()
    const problem = editProblem()
    if (problem) return toast("error", problem)
    const before = await readList(session)
    const stampBefore = await store.stamp(session)
    const edited = runEditor(draft ?? renderMarkdown(before))
    if (!edited.ok) return toast("error", edited.error)
    const parsed = parseMarkdown(edited.value, limits)
    if (!parsed.ok) {
      const line = errorLine(parsed.error)
      toast("error", `The list was not changed. ${parsed.error}`)
      api.ui.dialog.replace(() => (
        <api.ui.DialogConfirm
          title={line === undefined ? "Your edit has an error" : `Line ${line} of your edit has an error`}
          message={`${parsed.error}\n\nThe list was not changed. Reopen the editor to fix it?`}
          onConfirm={() => safely(editInEditor(session, edited.value))}
          onCancel={close}
        />
      ))
      return
    }
    if (sameList(parsed.value, before) && (await store.stamp(session)) === stampBefore)
      return toast("info", "No changes.")
    if ((await store.stamp(session)) !== stampBefore) {
      api.ui.dialog.replace(() => (
        <api.ui.DialogConfirm
          title="The list changed meanwhile"
          message="The list changed while you were editing (the agent may have updated it). Replace it with your version?"
          onConfirm={() => safely(applyMarkdown(session, edited.value, "Replaced the list with your edit."))}
          onCancel={() => {
            close()
            toast("info", "Your edit was discarded; the list was not changed.")
          }}
        />
      ))
      return
    }
    await applyMarkdown(session, edited.value, "Saved your edit.")
  }

  async function copyList(session: string): Promise<void> {
    close()
    const list = await readList(session)
    if (list.length === 0) return toast("info", "The list is empty; nothing to copy.")
    const markdown = renderMarkdown(list)
    const renderer = api.renderer as { copyToClipboardOSC52?: (text: string) => boolean }
    let copied = false
    try {
      copied = typeof renderer.copyToClipboardOSC52 === "function" && renderer.copyToClipboardOSC52(markdown)
    } catch {
      copied = false
    }
    if (copied) {
      toast(
        "success",
        `Copied ${taskCount(list)} tasks as Markdown (through the terminal's OSC 52 clipboard; some terminals ignore it).`,
      )
      return
    }
    api.ui.dialog.replace(() => (
      <api.ui.DialogAlert title="Todo as Markdown (select and copy)" message={markdown} onConfirm={close} />
    ))
  }

  async function exportToFile(session: string): Promise<void> {
    close()
    if (!storeShared())
      return toast(
        "error",
        "This TUI is attached to a server on another machine; use /todo export, which writes TODO.md on the server.",
      )
    const list = await readList(session)
    if (list.length === 0) return toast("info", "The list is empty; nothing to export.")
    const write = async (force: boolean) => {
      const out = await exportList(list, directory(), undefined, force)
      if (out.ok) {
        toast("success", `Wrote ${out.value.tasks} tasks to ${out.value.path}.`)
        return
      }
      if (out.needsConfirm) {
        api.ui.dialog.replace(() => (
          <api.ui.DialogConfirm
            title="Overwrite TODO.md?"
            message={`${out.path ?? "TODO.md"} exists and is not a todo export. Overwrite it?`}
            onConfirm={() => {
              close()
              safely(write(true))
            }}
            onCancel={() => {
              close()
              toast("info", "Export cancelled; nothing was written.")
            }}
          />
        ))
        return
      }
      toast("error", out.error)
    }
    await write(false)
  }

  async function importFromFile(session: string): Promise<void> {
    close()
    const problem = editProblem()
    if (problem) return toast("error", problem)
    const file = await readImport(directory(), undefined)
    if (!file.ok) return toast("error", file.error)
    const { path, text } = file.value
    const parsed = parseImport(text, limits, false)
    if (!parsed.ok && !parsed.needsConfirm)
      return toast("error", `${path}: ${parsed.error} The list was not changed.`)
    const current = await readList(session)
    const done = `Imported ${path}.`
    if (current.length === 0) return applyMarkdown(session, text, done)
    api.ui.dialog.replace(() => (
      <api.ui.DialogConfirm
        title={parsed.ok ? "Replace the list?" : "Clear the list?"}
        message={
          parsed.ok
            ? `Replace the current list (${countsText(current)}) with ${path} (${countsText(parsed.value)})?`
            : `${path} has no tasks and is not a todo export. Clear the current list (${countsText(current)})?`
        }
        onConfirm={() => safely(applyMarkdown(session, text, done))}
        onCancel={() => {
          close()
          toast("info", "Import cancelled; the list was not changed.")
        }}
      />
    ))
  }

  function open(): void {
    openMain().catch((error) => toast("error", message(error)))
  }

  // ---- commands ------------------------------------------------------------------------------

  // `@opentui/keymap` types are not installed, so the keymap is used through this narrow shape.
  type KeyCtx = {
    event?: {
      name?: string
      ctrl?: boolean
      meta?: boolean
      shift?: boolean
      preventDefault?: () => void
      stopPropagation?: () => void
    }
  }
  const keymap = api.keymap as unknown as
    | {
        registerLayer?: (layer: unknown) => () => void
        intercept?: (kind: string, fn: (ctx: KeyCtx) => void) => () => void
      }
    | undefined

  const commands = [
    {
      namespace: "palette",
      name: OPEN_COMMAND,
      title: "Todo list",
      desc: "Show and edit the session's phased todo list",
      category: "Todo",
      slashName: "todo",
      run: open,
    },
    {
      namespace: "palette",
      name: REFRESH_COMMAND,
      title: "Todo: refresh the sidebar",
      desc: "Reread the todo list",
      category: "Todo",
      hidden: true,
      run: refreshAll,
    },
  ]
  let registered = false
  if (typeof keymap?.registerLayer === "function") {
    try {
      offs.push(keymap.registerLayer({ commands }))
      registered = true
    } catch {
      registered = false
    }
  }
  if (!registered && api.command) {
    try {
      offs.push(
        api.command.register(() => [
          {
            title: "Todo list",
            value: OPEN_COMMAND,
            description: "Show and edit the session's phased todo list",
            category: "Todo",
            slash: { name: "todo" },
            onSelect: open,
          },
        ]),
      )
    } catch {
      // No command API at all: the sidebar still works.
    }
  }

  // The server also defines a `todo` command (for `/todo <verb>`), and the prompt's autocomplete puts
  // it first, so Enter on a bare `/todo` would pick the server's. Catch exactly that line and open
  // the dialog; anything with arguments still goes to the server command.
  if (typeof keymap?.intercept === "function") {
    try {
      offs.push(
        keymap.intercept("key", (ctx) => {
          try {
            const event = ctx?.event
            if (event?.name !== "return" || event.ctrl || event.meta || event.shift) return
            if (api.ui.dialog.open) return
            const editor = api.renderer.currentFocusedEditor
            if (editor?.plainText.trim() !== "/todo") return
            event.preventDefault?.()
            event.stopPropagation?.()
            editor.setText("")
            open()
          } catch {
            // Leave the key to the host.
          }
        }),
      )
    } catch {
      // No intercept: /todo is still in the autocomplete and the command palette.
    }
  }

  api.lifecycle?.onDispose(() => {
    for (const off of offs.splice(0)) {
      try {
        off()
      } catch {
        // Already gone.
      }
    }
  })
}

const plugin: TuiPluginModule & { id: string } = { id: PLUGIN_ID, tui }

export default plugin
