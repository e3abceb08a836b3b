// The /todo verbs: parses the user's argument string into a plan, resolving task and
// phase names fuzzily (exact, then unique prefix, then unique substring). Pure: the
// adapters (server command, TUI) carry the plan out.

import { appendPhase, clean, eachTask } from "./queries.ts"
import { fail, ok, type Result } from "./result.ts"
import { OPEN, type Op, type Target, type TaskStatus, type TodoList } from "./types.ts"
import { foldLine, nearestWord, quotePreview, STATUS_WORDS } from "./words.ts"

export type CommandPlan =
  | { readonly kind: "show" }
  | { readonly kind: "help" }
  | { readonly kind: "copy" }
  | { readonly kind: "edit" }
  | { readonly kind: "export"; readonly path?: string; readonly force: boolean }
  | { readonly kind: "import"; readonly path?: string; readonly force: boolean }
  | { readonly kind: "ops"; readonly verb: string; readonly ops: readonly Op[] }

export const COMMAND_USAGE = [
  "/todo                              show the list",
  "/todo edit                         edit the list as Markdown in $VISUAL/$EDITOR (TUI)",
  "/todo copy                         the list as Markdown",
  "/todo export [path] [--force]      write the list to a file (default TODO.md)",
  "/todo import [path] [--force]      replace the list from a file (default TODO.md)",
  '/todo append ["phase"] <task>      add a task, creating the phase if needed',
  "/todo start <task>                 mark a task in progress",
  "/todo done [task|phase]            mark a task, a phase, or everything done",
  "/todo drop [task|phase] [-- why]   mark a task, a phase, or everything dropped",
  "/todo block <task> [-- reason]     mark blocked, with an optional reason",
  "/todo rename <task|phase> -- <new> give a task or a phase a new text",
  "/todo unblock <task|phase> [-- why] blocked back to pending, saying why",
  "/todo rm [task|phase]              remove a task, a phase, or everything",
  "Aliases: add = append; show, view, list = /todo",
].join("\n")

/** Every verb parseCommand knows, aliases included: what a mistyped verb is matched against. */
export const VERBS = [
  "show",
  "view",
  "list",
  "help",
  "copy",
  "edit",
  "export",
  "import",
  "append",
  "add",
  "rename",
  "start",
  "done",
  "rm",
  "unblock",
  "drop",
  "block",
] as const

/**
 * The verb a mistyped one most likely meant (words.ts nearestWord: within a third of the verb's length,
 * and no other verb as near); else undefined.
 */
export function nearestVerb(typed: string): string | undefined {
  return nearestWord(typed, VERBS)
}

interface Word {
  readonly text: string
  /** Written in quotes: a quoted first word of append always names the phase. */
  readonly quoted: boolean
}

/**
 * Splits on whitespace; a "double" or 'single' quoted run is one word and its quotes are not part of
 * the text. A quote inside a word (don't) or without its closing partner is text.
 */
// One word: a quoted run, else a run of non-space characters.
const WORD = /"([^"]*)"|'([^']*)'|(\S+)/g

function words(input: string): Word[] {
  const out: Word[] = []
  for (const match of input.matchAll(WORD))
    out.push(
      match[3] !== undefined
        ? { text: match[3], quoted: false }
        : { text: match[1] ?? match[2] ?? "", quoted: true },
    )
  return out
}

/** The words of `input`, quotes removed (see `words`). */
export function tokenize(input: string): string[] {
  return words(input).map((word) => word.text)
}

const BLANK_TASK = 'The task is blank; give it some words: /todo append ["phase"] <task>'

function blankName(verb: string): string {
  return `The name is blank; give the task or phase to ${verb}, or run /todo to see the list.`
}

type Candidate = { readonly kind: "task" | "phase"; readonly name: string; readonly eligible: boolean }

/** The task statuses each verb can change; a partial name skips the others (rm and unlisted verbs take any). */
const ELIGIBLE: Readonly<Record<string, ReadonlySet<TaskStatus>>> = {
  start: new Set(["pending", "blocked"]),
  done: OPEN,
  drop: OPEN,
  block: new Set(["pending", "in_progress"]),
  unblock: new Set(["blocked"]),
}

/**
 * Resolves what the user typed to one task or phase: exact text first (case-sensitive,
 * then case-insensitive), then a unique prefix, then a unique substring. A prefix or substring
 * first counts only tasks `verb` can change (`done parser` skips a parser task already done), so
 * an ambiguous match lists only those. An ambiguous match is an error that lists the candidates.
 */
export function resolveTarget(
  list: TodoList,
  typed: string,
  allow: { task: boolean; phase: boolean } = { task: true, phase: true },
  verb?: string,
): Result<Target> {
  const query = clean(typed)
  const eligible = verb === undefined ? undefined : ELIGIBLE[verb]
  const candidates: Candidate[] = []
  if (allow.task)
    for (const { task } of eachTask(list))
      candidates.push({ kind: "task", name: task.text, eligible: eligible?.has(task.status) ?? true })
  if (allow.phase)
    for (const phase of list) candidates.push({ kind: "phase", name: phase.name, eligible: true })
  const lower = query.toLowerCase()
  const stages: ((c: Candidate) => boolean)[] = [
    (c) => c.name === query,
    (c) => c.name.toLowerCase() === lower,
    (c) => c.eligible && c.name.toLowerCase().startsWith(lower),
    (c) => c.eligible && c.name.toLowerCase().includes(lower),
    // Only tasks the verb cannot change match: the op then says why (already done, not blocked).
    (c) => c.name.toLowerCase().startsWith(lower),
    (c) => c.name.toLowerCase().includes(lower),
  ]
  for (const stage of stages) {
    const hits = candidates.filter(stage)
    // An exact task hit beats an exact phase hit of the same text: tasks are the finer target.
    const chosen = hits.length > 1 && hits[0]!.kind === "task" && stage === stages[0] ? [hits[0]!] : hits
    if (chosen.length === 1) {
      const hit = chosen[0]!
      return ok(hit.kind === "task" ? { kind: "task", text: hit.name } : { kind: "phase", name: hit.name })
    }
    if (chosen.length > 1) {
      const shown = chosen
        .slice(0, 6)
        .map((c) => `${c.kind} ${quotePreview(c.name, 50)}`)
        .join(", ")
      const more = chosen.length > 6 ? ` and ${chosen.length - 6} more` : ""
      return fail(`${quotePreview(query)} matches ${chosen.length}: ${shown}${more}. Type more of the name.`)
    }
  }
  const what = allow.task && allow.phase ? "task or phase" : allow.task ? "task" : "phase"
  return fail(`No ${what} matches ${quotePreview(query)}. Run /todo to see the list.`)
}

function parseAppend(list: TodoList, rest: string): Result<Op> {
  const all = words(rest)
  const [first, ...others] = all
  if (first === undefined) return fail('append needs a task: /todo append ["phase"] <task>')
  // A blank quoted run is never text the user meant to drop silently.
  if (all.some((word) => word.quoted && clean(word.text) === "")) return fail(BLANK_TASK)
  // A first word names a phase when it is quoted, or exactly an existing phase's name.
  const named = others.length > 0 && (first.quoted || list.some((phase) => phase.name === first.text))
  const text = clean((named ? others : all).map((word) => word.text).join(" "))
  if (text === "") return fail(BLANK_TASK)
  return ok({ op: "append", phase: named ? clean(first.text) : appendPhase(list), items: [text] })
}

/**
 * `name -- text`: the name before the first lone `--` (a word of its own, outside quotes), and everything after
 * it as typed: later separators, quotes and dashes belong to the reason or the new text, never cut.
 */
function splitReason(rest: string): [string, string] {
  for (const match of rest.matchAll(WORD))
    if (match[0] === "--") return [rest.slice(0, match.index), rest.slice(match.index + 2)]
  return [rest, ""]
}

/**
 * The text after the separator as it is kept: on one line (a line break folds to a space, as a task is one
 * line) and trimmed; quotes around the whole of it are grouping, as around a name, and go.
 */
function typedText(raw: string): string {
  const line = foldLine(raw)
  const quoted = /^"([^"]*)"$/.exec(line) ?? /^'([^']*)'$/.exec(line)
  return quoted ? clean(quoted[1]!) : line
}

/** Parses the text after `/todo` into a plan. Never throws; unknown verbs are errors with usage. */
export function parseCommand(input: string, list: TodoList): Result<CommandPlan> {
  const trimmed = input.trim()
  const verbMatch = /^(\S+)\s*(.*)$/s.exec(trimmed)
  const verb = verbMatch?.[1]?.toLowerCase() ?? ""
  const rest = verbMatch?.[2] ?? ""
  const tokens = tokenize(rest)
  const arg = clean(tokens.join(" "))
  // Quotes around nothing name nothing: an error, never "everything" for done, drop or rm.
  const blank = tokens.length > 0 && arg === ""

  switch (verb) {
    case "":
    case "show":
    case "view":
    case "list":
      return ok({ kind: "show" })
    case "help":
      return ok({ kind: "help" })
    case "copy":
      return ok({ kind: "copy" })
    case "edit":
      return ok({ kind: "edit" })
    case "export":
    case "import": {
      const force = tokens.includes("--force") || tokens.includes("-f")
      const path = tokens.filter((t) => t !== "--force" && t !== "-f").join(" ")
      return ok({ kind: verb, force, ...(path ? { path } : {}) })
    }
    case "append":
    case "add": {
      const parsed = parseAppend(list, rest)
      return parsed.ok ? ok({ kind: "ops", verb: "append", ops: [parsed.value] }) : parsed
    }
    case "rename": {
      const [name = "", rawTo = ""] = splitReason(rest)
      const nameText = clean(tokenize(name).join(" "))
      if (tokenize(name).length > 0 && nameText === "") return fail(blankName(verb))
      const to = typedText(rawTo)
      if (nameText === "" || to === "")
        return fail("rename needs a name and the new text: /todo rename <task|phase> -- <new text>")
      const resolved = resolveTarget(list, nameText, { task: true, phase: true }, verb)
      if (!resolved.ok) return resolved
      const target = resolved.value
      if (target.kind === "all")
        return fail("rename needs a task or a phase: /todo rename <task|phase> -- <new text>")
      return ok({ kind: "ops", verb, ops: [{ op: "rename", target, to }] })
    }
    case "start":
    case "done":
    case "rm": {
      if (blank) return fail(blankName(verb))
      if (arg === "") {
        if (verb === "start") return fail("start needs a task: /todo start <name>")
        return ok({ kind: "ops", verb, ops: [{ op: verb, target: { kind: "all" } }] })
      }
      const resolved = resolveTarget(list, arg, { task: true, phase: verb !== "start" }, verb)
      if (!resolved.ok) return resolved
      const target = resolved.value
      const op: Op =
        verb === "start" && target.kind === "task" ? { op: "start", target } : { op: verb as "done", target }
      return ok({ kind: "ops", verb, ops: [op] })
    }
    // Each takes a reason after "--": block and drop keep it on the task, unblock says it and keeps none.
    case "drop":
    case "block":
    case "unblock": {
      const [name = "", rawReason = ""] = splitReason(rest)
      const nameWords = tokenize(name)
      const nameText = clean(nameWords.join(" "))
      if (nameWords.length > 0 && nameText === "") return fail(blankName(verb))
      const reason = typedText(rawReason)
      if (nameText === "") {
        if (verb !== "drop") return fail(`${verb} needs a task or phase: /todo ${verb} <name> [-- reason]`)
        const all: Op = reason
          ? { op: "drop", target: { kind: "all" }, reason }
          : { op: "drop", target: { kind: "all" } }
        return ok({ kind: "ops", verb, ops: [all] })
      }
      const resolved = resolveTarget(list, nameText, { task: true, phase: true }, verb)
      if (!resolved.ok) return resolved
      const op: Op = reason
        ? { op: verb, target: resolved.value, reason }
        : { op: verb, target: resolved.value }
      return ok({ kind: "ops", verb, ops: [op] })
    }
    default: {
      const near = nearestVerb(verb)
      const hint = near ? ` Did you mean /todo ${near}?` : ""
      return fail(`Unknown /todo verb ${quotePreview(verb, 30)}.${hint}\n${COMMAND_USAGE}`)
    }
  }
}

/** The server command's description: the one `/todo` row of the prompt's autocomplete (about 50 columns show at 80). */
export const COMMAND_DESCRIPTION =
  "Todo list: open it, or done|start|block|drop|rm|append|rename <task>, edit, copy, export, import, help"

/** The verbs as the TUI's help toast lists them: short lines for its 54-column box. */
export const TYPED_HELP = [
  "/todo                      open the list",
  "/todo done|start|drop|rm <task>",
  "/todo block|drop|unblock <task> -- reason",
  "/todo rename <task> -- new text",
  '/todo append ["phase"] <task>',
  "/todo edit | copy",
  "/todo export|import [path]",
  "add = append; view, list = /todo",
].join("\n")

/**
 * Why a typed op changed nothing, read from the list it ran on: "it is already in progress", "it is
 * not blocked (it is pending)", "nothing in it to change" (a phase, the whole list).
 */
export function unchangedReason(op: Op, list: TodoList): string {
  if (!("target" in op)) return "nothing to change"
  const target = op.target
  if (target.kind !== "task") return "nothing in it to change"
  const task = [...eachTask(list)].find((hit) => hit.task.text === target.text)?.task
  if (!task) return "no such task"
  if (op.op === "rename") return "it already has that text"
  if (op.op === "unblock" && task.status !== "blocked")
    return `it is not blocked (it is ${STATUS_WORDS[task.status]})`
  if (op.op === "block" && task.status === "blocked") return "it is already blocked, for that reason"
  return `it is already ${STATUS_WORDS[task.status]}`
}

/**
 * What a typed op addressed, as the user typed it: `start "Port credential store"`, `done phase "Build"`,
 * `drop everything`. `q` quotes a name for where the text goes (a toast, the model).
 */
export function opSubject(op: Op, q: (text: string) => string): string {
  if (!("target" in op)) return op.op === "append" ? `append to ${q(op.phase ?? "")}` : op.op
  const target = op.target
  if (target.kind === "all") return `${op.op} everything`
  return target.kind === "phase" ? `${op.op} phase ${q(target.name)}` : `${op.op} ${q(target.text)}`
}

/** Each typed op that changed nothing, with why: `start "Port credential store": it is already in progress`. */
export function unchangedText(ops: readonly Op[], list: TodoList, q: (text: string) => string): string[] {
  return ops.map((op) => `${opSubject(op, q)}: ${unchangedReason(op, list)}`)
}

/**
 * The text after `/todo` when a prompt line is a /todo command (the name, then whitespace or the end),
 * else undefined: `/todos` or `/todo-x` are other commands, and text before the slash is a message.
 */
export function todoArguments(line: string): string | undefined {
  const match = /^\s*\/todo(?:\s+([\s\S]*))?$/.exec(line)
  if (!match) return undefined
  return (match[1] ?? "").trim()
}

/** An error as one toast: its first line, pointing to the help when the rest (the usage) is left out. */
export function typedError(error: string): string {
  const [first = "", ...rest] = error.split("\n")
  return rest.length > 0 ? `${first} /todo help lists the verbs.` : first
}
