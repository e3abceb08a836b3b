// The demo's story as text: what each step of the session prints (the agent's calls and what the model
// reads back, the sidebar the user sees, the user's own edit and the notice the model gets for it, the
// plugin's reminder), the markers explained once, and the closing figures. Its checks are in
// demo-checks.ts. Pure: scripts/demo.mjs feeds it what the real host reports, and
// test/unit/demo-story.test.ts feeds it a session stepped through the core, so both read the same lines.

import { DEFAULT_SIDEBAR_ROWS } from "../../src/core/config.ts"
import { displayWidth } from "../../src/core/list/text-width.ts"
import type { TaskStatus, TodoList } from "../../src/core/list/types.ts"
import { quote, STATUS_BOXES, STATUS_GLYPHS, STATUS_WORDS } from "../../src/core/list/words.ts"
import { MARKER } from "../../src/core/model/prompts.ts"
import {
  buildSidebarView,
  SIDEBAR_WIDTH,
  type SidebarView,
  sidebarText,
} from "../../src/core/view/sidebar.ts"

/** One thing that happened in the session, in the order it is told. */
export type StoryItem =
  | { readonly kind: "user"; readonly text: string }
  | { readonly kind: "assistant"; readonly text: string }
  | { readonly kind: "tool"; readonly tool: string; readonly input: unknown; readonly output: string }
  | {
      readonly kind: "todo"
      readonly input: unknown
      /** The tool result exactly as the model reads it. */
      readonly output: string
      /** The list after the call, as the host reports it in the result's metadata. */
      readonly list?: TodoList
    }
  | { readonly kind: "reminder"; readonly text: string }
  | {
      readonly kind: "user-edit"
      /** The dialog row the user picked ("Drop"), and the task it was picked on. */
      readonly action: string
      readonly task: string
      /**
       * The `/todo` line, when the change was typed and run on the server over the plugin's RPC (OpenCode 2)
       * instead of picked in the dialog.
       */
      readonly typed?: string
      /** The toast the dialog shows after the change. */
      readonly toast: string
      readonly list: TodoList
    }
  | { readonly kind: "notice"; readonly text: string }

/** A message part as the host reports it in `message.part.updated` (the fields the story reads). */
export interface HostPart {
  readonly type?: string
  /** A tool part's call id: the id the model's request carries its result under. */
  readonly callID?: string
  readonly text?: string
  readonly synthetic?: boolean
  readonly time?: { readonly end?: number }
  readonly tool?: string
  readonly state?: {
    readonly status?: string
    readonly input?: unknown
    readonly output?: string
    readonly error?: string
    readonly metadata?: { readonly list?: TodoList }
  }
}

/**
 * The story item a finished part tells, or undefined (a part still streaming, the user's own prompt,
 * anything else). The plugin's messages carry its marker; the assistant's text is told once it ends.
 */
export function itemOfPart(part: HostPart): StoryItem | undefined {
  if (part.type === "text" && typeof part.text === "string") {
    if (part.synthetic && part.text.trimStart().startsWith(MARKER))
      return { kind: "reminder", text: part.text }
    if (!part.synthetic && part.time?.end) return { kind: "assistant", text: part.text }
    return undefined
  }
  const state = part.state
  if (part.type !== "tool" || !state || (state.status !== "completed" && state.status !== "error"))
    return undefined
  const output = String(state.output ?? state.error ?? "")
  if (part.tool === "todo") {
    const list = state.metadata?.list
    return list
      ? { kind: "todo", input: state.input, output, list }
      : { kind: "todo", input: state.input, output }
  }
  return { kind: "tool", tool: String(part.tool), input: state.input, output }
}

/** An event of OpenCode 2's `/api/event` stream: `{ type, data }`. */
export interface HostEvent2 {
  readonly type?: string
  readonly data?: Record<string, unknown>
}

/**
 * Reads OpenCode 2's event stream as the parts `itemOfPart` tells: a tool part when its call ends
 * (`session.tool.success` / `.failed`; its name came with `session.tool.input.started`, its input with
 * `session.tool.called`), the assistant's text when it ends, and a synthetic message when the host queues
 * it (the plugin's reminder). Remembers the calls it has seen; events of other sessions are skipped.
 */
export function v2PartReader(sessionID: string): (event: HostEvent2) => HostPart | undefined {
  const calls = new Map<string, { tool?: string; input?: unknown }>()
  const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
  return (event) => {
    const data = event.data
    if (!data || data.sessionID !== sessionID) return undefined
    const id = str(data.id)
    switch (event.type) {
      case "session.tool.input.started":
        if (id) calls.set(id, { ...calls.get(id), tool: str(data.name) })
        return undefined
      case "session.tool.called":
        if (id) calls.set(id, { ...calls.get(id), input: data.input })
        return undefined
      case "session.tool.success":
      case "session.tool.failed": {
        if (!id) return undefined
        const call = calls.get(id) ?? {}
        const ok = event.type === "session.tool.success"
        const content = Array.isArray(data.content) ? data.content : []
        const output = content.map((c) => str((c as { text?: unknown })?.text) ?? "").join("")
        const error = (data.error as { message?: unknown } | undefined)?.message
        return {
          type: "tool",
          callID: id,
          tool: call.tool ?? "tool",
          state: ok
            ? {
                status: "completed",
                input: call.input,
                output,
                metadata: data.metadata as { list?: TodoList },
              }
            : { status: "error", input: call.input, error: str(error) ?? "failed" },
        }
      }
      case "session.text.ended":
        return { type: "text", text: str(data.text) ?? "", time: { end: 1 } }
      case "session.inbox.enqueued": {
        const item = data.item as { type?: unknown; payload?: { text?: unknown } } | undefined
        if (item?.type !== "synthetic") return undefined
        return { type: "text", synthetic: true, text: str(item.payload?.text) ?? "" }
      }
    }
    return undefined
  }
}

/** Each step's first line starts with its label; the check below finds the story's steps by them. */
export const LABELS = {
  user: "user:",
  assistant: "agent:",
  tool: "agent →",
  reminder: "plugin → model (reminder, a new message):",
  edit: "you, in the /todo dialog:",
  typed: "you, in the TUI:",
  notice: "plugin → model (added to its next request, once):",
  figures: "Figures",
  next: "Next step:",
} as const

export interface Paint {
  /** Colours one sidebar line by what it shows; identity when the output is not a terminal. */
  readonly line: (text: string, tone: LineTone) => string
}
export type LineTone = "border" | "header" | "phase" | "active-phase" | "more" | TaskStatus

export const PLAIN: Paint = { line: (text) => text }

const ANSI: Record<LineTone, string> = {
  border: "2",
  header: "1",
  phase: "2",
  "active-phase": "1",
  more: "2",
  in_progress: "33",
  pending: "0",
  completed: "32",
  abandoned: "2",
  blocked: "31",
}
/** ANSI colours for a terminal. */
export const COLOUR: Paint = { line: (text, tone) => `\u001b[${ANSI[tone]}m${text}\u001b[0m` }

export interface StoryState {
  /** The last sidebar frame printed, as plain text: an equal frame is not printed again. */
  readonly frame?: string
  readonly legendShown: boolean
  /** The list as last told, so a notice's copy of it can be folded too. */
  readonly list?: TodoList
}
export const START: StoryState = { legendShown: false }

/** The indent of a step's first line. */
export const INDENT = "  "
const BODY = "      "

/** Text from the host or the model, safe to print: control characters shown as spaces. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, " ")
}

const q = (text: string) => `"${printable(text)}"`

/** A todo call as one short line: `done "Reproduce the crash"`, `init: 3 phases, 5 tasks`. */
export function callText(input: unknown): string {
  const args = (input ?? {}) as Record<string, unknown>
  if (Array.isArray(args.ops)) return args.ops.map(callText).join(", ")
  if (Array.isArray(args.list)) {
    const tasks = args.list.reduce(
      (n: number, p) =>
        n + (Array.isArray((p as { items?: unknown }).items) ? (p as { items: [] }).items.length : 0),
      0,
    )
    return `init: ${plural(args.list.length, "phase")}, ${plural(tasks, "task")}`
  }
  const parts: string[] = [typeof args.op === "string" ? printable(args.op) : "init"]
  if (typeof args.task === "string") parts.push(q(args.task))
  if (Array.isArray(args.items)) parts.push(plural(args.items.length, "task"))
  if (typeof args.phase === "string") parts.push(`in ${q(args.phase)}`)
  if (typeof args.reason === "string") parts.push(`(${printable(args.reason)})`)
  return parts.join(" ")
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`
}

/** A shell call as one line: its description, else its command, cut short. */
function toolCallText(tool: string, input: unknown): string {
  const args = (input ?? {}) as Record<string, unknown>
  const what =
    typeof args.description === "string"
      ? args.description
      : typeof args.command === "string"
        ? args.command
        : JSON.stringify(input ?? {})
  return `${printable(tool)}: ${cut(printable(what), 80)}`
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

const BOXES = new Set(Object.values(STATUS_BOXES))

/**
 * The text with the list's own lines (phase headings and boxed tasks, as the model reads them) folded
 * into one placeholder: the sidebar frame printed with it shows the list, so it is not printed twice.
 */
export function withoutList(text: string, list: TodoList | undefined): string {
  // Phase lines as the model reads them: the quoted name, then its count.
  const phases = new Set((list ?? []).map((p) => quote(p.name)))
  const isListLine = (line: string): boolean => {
    const heading = /^(.*) \((?:\d+\/\d+|dropped)\)$/.exec(line)
    if (heading && phases.has(heading[1]!)) return true
    const box = line.trimStart().slice(0, 3)
    return line.startsWith("  ") && BOXES.has(box)
  }
  const out: string[] = []
  for (const line of text.split("\n")) {
    if (!isListLine(line)) out.push(line)
    else if (out.at(-1) !== PLACEHOLDER) out.push(PLACEHOLDER)
  }
  return out.join("\n")
}
export const PLACEHOLDER = "‹the whole list as text: the phases and tasks the sidebar shows›"

/** The widest line the demo prints: a terminal of 80 columns shows every line whole. */
export const COLUMNS = 80

/**
 * A line cut at spaces into lines of at most `COLUMNS` columns; the continuation lines keep its indent
 * plus two. A word longer than a line stays whole (a path, a URL).
 */
export function wrapLine(line: string, columns = COLUMNS): string[] {
  if (displayWidth(line) <= columns) return [line]
  const indent = /^ */.exec(line)![0]
  const words = line.slice(indent.length).split(" ")
  const out: string[] = []
  let current = indent
  for (const word of words) {
    const sep = current.trim() === "" ? "" : " "
    if (current.trim() !== "" && displayWidth(current + sep + word) > columns) {
      out.push(current)
      current = `${indent}  ${word}`
    } else current += sep + word
  }
  out.push(current)
  return out
}

/** The marker legend, printed once before the first sidebar: the sidebar's glyph and the model's box for each status. */
export function legendLines(): string[] {
  const order: TaskStatus[] = ["in_progress", "pending", "completed", "abandoned", "blocked"]
  const entries = order.map((s) => `${STATUS_GLYPHS[s]} ${STATUS_WORDS[s]}`)
  const boxes = order.map((s) => STATUS_BOXES[s]).join(" ")
  return [
    `${BODY}The sidebar below is what you see in OpenCode's TUI. Its markers:`,
    `${BODY}${entries.join(", ")}; the model reads them as ${boxes}.`,
    `${BODY}"X/Y done": X tasks done of the Y not dropped; dropped tasks are named apart ("· 1 dropped"). Finished tasks leave the sidebar; their phase row keeps the count.`,
  ].flatMap((line) => wrapLine(line))
}

/** The sidebar as the TUI draws it (core rendering, default rows and width), in a box titled "Todo". */
export function frameLines(list: TodoList, paint: Paint = PLAIN): string[] {
  const view = buildSidebarView(list, { maxRows: DEFAULT_SIDEBAR_ROWS })
  if (view === undefined) return []
  const width = SIDEBAR_WIDTH
  const texts = sidebarText(view, width)
  const tones = lineTones(view)
  const top = `┌ Todo ${"─".repeat(width - 4)}┐`
  const bottom = `└${"─".repeat(width + 2)}┘`
  const rows = texts.map((text, i) => {
    const pad = " ".repeat(Math.max(0, width - displayWidth(text)))
    return `${paint.line("│", "border")} ${paint.line(text, tones[i]!)}${pad} ${paint.line("│", "border")}`
  })
  return [paint.line(top, "border"), ...rows, paint.line(bottom, "border")].map((l) => BODY + l)
}

function lineTones(view: SidebarView): LineTone[] {
  return [
    "header",
    ...view.rows.map((row): LineTone => {
      if (row.kind === "phase") return row.active ? "active-phase" : "phase"
      if (row.kind === "task") return row.status
      return "more"
    }),
  ]
}

function indented(text: string, pad = BODY): string[] {
  return printable(text)
    .split("\n")
    .map((line) => pad + line)
}

/**
 * The lines one step prints, and the state after it. A list change prints the sidebar frame, unless
 * it equals the frame printed last; the legend comes once, before the first frame.
 */
export function tell(
  state: StoryState,
  item: StoryItem,
  paint: Paint = PLAIN,
): { state: StoryState; lines: string[] } {
  const lines: string[] = [""]
  let list: TodoList | undefined
  switch (item.kind) {
    case "user":
      lines.push(`${INDENT}${LABELS.user} ${printable(item.text)}`)
      break
    case "assistant":
      lines.push(`${INDENT}${LABELS.assistant} ${printable(item.text)}`)
      break
    case "tool":
      lines.push(`${INDENT}${LABELS.tool} ${toolCallText(item.tool, item.input)}`)
      lines.push(...indented(item.output.trim() || "(no output)"))
      break
    case "todo":
      list = item.list
      lines.push(`${INDENT}${LABELS.tool} todo ${callText(item.input)}`)
      lines.push(`${BODY}the model reads (${item.output.length} characters):`)
      lines.push(...indented(withoutList(item.output, item.list), `${BODY}  `))
      break
    case "reminder":
      lines.push(`${INDENT}${LABELS.reminder}`)
      lines.push(...indented(withoutMarker(item.text), `${BODY}`))
      break
    case "user-edit":
      list = item.list
      if (item.typed === undefined)
        lines.push(`${INDENT}${LABELS.edit} ${q(item.task)} → ${printable(item.action)}`)
      else
        lines.push(
          `${INDENT}${LABELS.typed} /todo ${printable(item.typed)}`,
          `${BODY}(run on the server through the plugin's RPC: no model turn)`,
        )
      lines.push(
        ...printable(item.toast)
          .split("\n")
          .map((line, i) => `${BODY}${i === 0 ? "toast: " : "       "}${line}`),
      )
      break
    case "notice":
      lines.push(`${INDENT}${LABELS.notice}`)
      lines.push(...indented(withoutList(withoutMarker(item.text), state.list), BODY))
      break
  }
  lines.splice(0, lines.length, ...lines.flatMap((line) => wrapLine(line)))
  if (list === undefined || list.length === 0) return { state, lines }
  const plain = frameLines(list).join("\n")
  if (plain === state.frame) return { state: { ...state, list }, lines }
  if (!state.legendShown) lines.push(...legendLines())
  lines.push(...frameLines(list, paint))
  return { state: { frame: plain, legendShown: true, list }, lines }
}

function withoutMarker(text: string): string {
  const trimmed = text.trimStart()
  return (trimmed.startsWith(MARKER) ? trimmed.slice(MARKER.length) : trimmed).trim()
}

export interface Figures {
  readonly mainRequests: number
  readonly titleRequests: number
  readonly reminders: number
  /** Every todo result the model read, in full. */
  readonly todoOutputs: readonly string[]
  readonly sessionSeconds?: number
  readonly bootSeconds?: number
}

/** The OpenCode a demo runs on: "1" for 1.18, "2" for OpenCode 2. */
export type DemoHost = "1" | "2"

/** The step after the demo on each host: the command that installs the plugin, and what it does. */
const NEXT: Record<DemoHost, readonly string[]> = {
  "1": [
    "npm run install-plugin",
    "lists this plugin in your OpenCode config (README, Install). Restart OpenCode",
    "and your sessions get the todo tool, /todo and the sidebar.",
  ],
  "2": [
    "npm run install-plugin -- --host=2",
    "writes this plugin's folder into your OpenCode 2 config (docs/opencode-2.md).",
    "Restart OpenCode and your sessions get the todo tool, /todo and the sidebar.",
  ],
}

/** The closing figures and the next step on `host`. */
export function closingLines(figures: Figures, host: DemoHost = "1"): string[] {
  const chars = figures.todoOutputs.reduce((n, o) => n + o.length, 0)
  const calls = figures.todoOutputs.length
  const lines = [
    "",
    LABELS.figures,
    `${INDENT}model requests: ${figures.mainRequests} (plus ${plural(figures.titleRequests, "title request")})`,
    `${INDENT}reminders: ${figures.reminders}`,
    `${INDENT}todo results the model read: ${plural(calls, "call")}, ${chars} characters${calls > 0 ? ` (${Math.round(chars / calls)} a call)` : ""}`,
  ]
  if (figures.sessionSeconds !== undefined)
    lines.push(
      `${INDENT}session: ${figures.sessionSeconds.toFixed(0)} s${figures.bootSeconds === undefined ? "" : ` (after ${figures.bootSeconds.toFixed(0)} s to start OpenCode)`}`,
    )
  const [command, ...what] = NEXT[host]
  lines.push("", `${LABELS.next} ${command}`, ...what.map((line) => `${INDENT}${line}`))
  return lines.flatMap((line) => wrapLine(line))
}

/** The plain-text form of printed lines: ANSI colours removed. */
export function plainText(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "")
}
