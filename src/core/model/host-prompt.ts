// The host's system prompt and its passages about todo lists: which prompt a model id gets, where each
// passage sits (found by its section heading or a short opening phrase, never by a copy of the host's
// text), and what replaces it: a short pointer to the `todo` tool, or nothing when the agent of the
// request cannot call `todo`. A passage that is not found leaves the prompt as it was.
//
// Pure: the server hands in the system texts of one request and writes back what comes out.

import type { Config } from "../config.ts"
import { TODO_TOOL } from "../list/words.ts"

/** Steering runs only while the built-in todowrite is off (with it on, its passages are right) and the key allows. */
export function steeringOn(config: Pick<Config, "keepTodowrite" | "steerHostPrompt">): boolean {
  return config.steerHostPrompt && !config.keepTodowrite
}

/**
 * The host's prompt families, as it picks them from the model id (first match wins, see `promptFamily`).
 * Only `anthropic`, `muse` and `beast` carry passages about todo lists.
 */
export type PromptFamily = "muse" | "beast" | "gpt" | "gemini" | "anthropic" | "trinity" | "kimi" | "default"

/**
 * The family of the prompt the host sends with a model, by the model's API id. Mirrors the host's
 * order: plain substrings, case-sensitive except trinity and kimi (so any id holding "o1" is beast).
 */
export function promptFamily(modelId: string, providerId = ""): PromptFamily {
  if (modelId.includes("muse")) return "muse"
  if (modelId.includes("gpt-4") || modelId.includes("o1") || modelId.includes("o3")) return "beast"
  if (modelId.includes("gpt")) return "gpt"
  if (modelId.includes("gemini-")) return "gemini"
  if (modelId.includes("claude")) return "anthropic"
  const lower = modelId.toLowerCase()
  if (lower.includes("trinity")) return "trinity"
  if (lower.includes("kimi") || ["kimi-for-coding", "moonshotai", "moonshotai-cn"].includes(providerId))
    return "kimi"
  return "default"
}

/**
 * Where a passage sits:
 * - `section`: a heading line matching `anchor`, through the line before the next heading of the same or a
 *   higher level (trailing blank lines stay outside). A section with no heading after it is not trusted.
 * - `paragraph`: a line starting with `anchor`, through the line before the next blank line.
 * - `line`: one line starting with `anchor`.
 */
type Shape = "section" | "paragraph" | "line"

interface Passage {
  /** A short name for logs and the README table. */
  readonly name: string
  readonly family: PromptFamily
  readonly shape: Shape
  /** Matches the start of the passage's first line; its groups feed `pointer`. */
  readonly anchor: RegExp
  /** Our text for the passage when the agent can call `todo`; `match` is the anchor's match. */
  readonly pointer: (match: RegExpExecArray) => string
  /**
   * When the agent cannot call `todo`: `remove` for a passage that names a tool the agent does not
   * have; `keep` for one that asks for a list in the reply, which is then the only list there is.
   */
  readonly withoutTodo: "remove" | "keep"
}

const T = `\`${TODO_TOOL}\``

/** The passages, in prompt order per family. Section headings are matched loosely (spaces, dashes). */
export const PASSAGES: readonly Passage[] = [
  {
    name: "Task Management section",
    family: "anthropic",
    shape: "section",
    anchor: /^#\s+Task Management\s*$/,
    pointer: () =>
      `# Task Management\nPlan work of three or more steps with the ${T} tool: phases of tasks, each task addressed by its exact text. Keep one task in progress and mark it done as soon as it is finished, not in a batch at the end; the next one then starts by itself.`,
    withoutTodo: "remove",
  },
  {
    name: "Doing tasks bullet",
    family: "anthropic",
    shape: "line",
    anchor: /^-\s+Use the TodoWrite tool to plan\b/,
    pointer: () => `- Plan multi-step tasks with the ${T} tool`,
    withoutTodo: "remove",
  },
  {
    name: "Tool usage policy IMPORTANT line",
    family: "anthropic",
    shape: "line",
    anchor: /^IMPORTANT:\s+Always use the TodoWrite tool\b/,
    pointer: () => `IMPORTANT: Plan and track multi-step work with the ${T} tool.`,
    withoutTodo: "remove",
  },
  {
    name: "TodoWrite Tools section",
    family: "muse",
    shape: "section",
    anchor: /^#\s+Tool Use\s*\S\s*`TodoWrite`\s+Tools?\s*$/u,
    pointer: () =>
      `# Tool Use - ${T} Tool\n- Plan multi-step work with the ${T} tool: phases of tasks, each addressed by its exact text.\n- Keep one task in progress and mark it done as soon as it is finished; the next one starts by itself.\n- Work through the whole list in one turn.`,
    withoutTodo: "remove",
  },
  {
    name: "end-of-turn paragraph",
    family: "beast",
    shape: "paragraph",
    anchor: /^Only terminate your turn when you are sure that the problem is solved\b/,
    pointer: () =>
      `Only end your turn when the problem is solved and every task in the ${T} list is done. Go step by step and verify that your changes are correct; when you say you will call a tool, call it.`,
    withoutTodo: "keep",
  },
  {
    name: "resume paragraph",
    family: "beast",
    shape: "paragraph",
    anchor: /^If the user request is "resume"/,
    pointer: () =>
      `If the user asks you to resume, continue or try again, view the ${T} list and carry on with the task in progress; tell the user which task that is, and do not hand back control until every task is done.`,
    withoutTodo: "keep",
  },
  {
    name: "keep-working paragraph",
    family: "beast",
    shape: "paragraph",
    anchor: /^You MUST keep working until the problem is completely solved\b/,
    pointer: () =>
      `You MUST keep working until the problem is completely solved and every task in the ${T} list is done and verified. When you say what you will do next, do it in this turn instead of only announcing it.`,
    withoutTodo: "keep",
  },
  {
    name: "Workflow plan step",
    family: "beast",
    shape: "line",
    anchor: /^(\d+)\.\s+Develop a clear, step-by-step plan\b/,
    pointer: (m) => `${m[1]}. Plan the fix as small, incremental steps and record them with the ${T} tool.`,
    withoutTodo: "keep",
  },
  {
    name: "Develop a Detailed Plan section",
    family: "beast",
    shape: "section",
    anchor: /^(##\s+\d+\.\s+Develop a Detailed Plan)\s*$/,
    pointer: (m) =>
      `${m[1]}\n- Outline specific, verifiable steps and record them with the ${T} tool: phases of tasks (op init).\n- Mark each task done (op done, its exact text) as soon as it is finished; the next one starts by itself, so carry on with it instead of ending your turn.`,
    withoutTodo: "keep",
  },
  {
    name: "Writing Prompts todo-list line",
    family: "beast",
    shape: "line",
    anchor: /^Remember that todo lists must always be written in markdown\b/,
    pointer: () => `Plans live in the ${T} tool, not in your reply.`,
    withoutTodo: "keep",
  },
]

/**
 * Text that shows a family's prompt is present and still talks about todo lists, so a passage that
 * is not found has moved. Title, compaction, custom agent and already steered prompts carry none.
 */
const LEFTOVER: Readonly<Partial<Record<PromptFamily, RegExp>>> = {
  anthropic: /TodoWrite|todowrite|todoread/,
  muse: /TodoWrite|todowrite|todoread/,
  beast: /todo lists? (in|must|using)\b/i,
}

/** A section or paragraph longer than this is not the passage it looks like: the prompt's layout changed. */
const MAX_PASSAGE_CHARS = 4000

interface FoundPassage {
  readonly start: number
  readonly end: number
  readonly match: RegExpExecArray
}

const headingLevel = (line: string): number => /^(#+)\s/.exec(line)?.[1]?.length ?? 0

/** Finds a passage in one text; undefined when its anchor or its shape is not there. */
function findPassage(text: string, passage: Passage): FoundPassage | undefined {
  const lines = text.split("\n")
  let offset = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const match = passage.anchor.exec(line)
    if (match) {
      let last = i
      if (passage.shape === "section") {
        const level = headingLevel(line)
        let next = i + 1
        while (
          next < lines.length &&
          !(headingLevel(lines[next]!) > 0 && headingLevel(lines[next]!) <= level)
        )
          next++
        if (level === 0 || next === lines.length) return undefined
        last = next - 1
        while (last > i && lines[last]!.trim() === "") last--
      } else if (passage.shape === "paragraph") {
        while (last + 1 < lines.length && lines[last + 1]!.trim() !== "") last++
      }
      const end = offset + lines.slice(i, last + 1).join("\n").length
      if (end - offset > MAX_PASSAGE_CHARS) return undefined
      return { start: offset, end, match }
    }
    offset += line.length + 1
  }
  return undefined
}

/**
 * Cuts a passage out without leaving a gap: a section takes the blank lines up to the next heading
 * with it; a line or paragraph standing between blank lines takes one of them.
 */
function cut(text: string, span: FoundPassage, shape: Shape): string {
  let after = text[span.end] === "\n" ? span.end + 1 : span.end
  if (shape === "section") while (text[after] === "\n") after++
  else if (text.slice(span.start - 2, span.start) === "\n\n" && text[after] === "\n") after++
  return text.slice(0, span.start) + text.slice(after)
}

/** The family's passages found in a text, with their lengths (what a prompt spends on them). */
export function findPassages(
  text: string,
  modelId: string,
  providerId = "",
): { readonly name: string; readonly chars: number }[] {
  const family = promptFamily(modelId, providerId)
  const found: { name: string; chars: number }[] = []
  for (const passage of PASSAGES) {
    if (passage.family !== family) continue
    const span = findPassage(text, passage)
    if (span) found.push({ name: passage.name, chars: span.end - span.start })
  }
  return found
}

export interface SteerInput {
  /** The request's system texts, as the host hands them to the system transform. */
  readonly system: readonly string[]
  /** The model's API id, by which the host picked the prompt. */
  readonly modelId: string
  readonly providerId?: string
  /** Whether the agent of the request can call `todo`: pointers when it can, removal when it cannot. */
  readonly todoCallable: boolean
  /** Families already warned about in this process: each is warned about once. */
  readonly warned: ReadonlySet<PromptFamily>
}

export interface SteerResult {
  readonly family: PromptFamily
  /** The system texts after steering; entries that did not change are the same strings. */
  readonly system: readonly string[]
  /** Characters removed from the system texts (negative if they grew). */
  readonly saved: number
  readonly steered: readonly string[]
  /** Passages of this family not found in a prompt that is recognisably this family's. */
  readonly missing: readonly string[]
  /** A one-time warning for the log when the host's wording moved away from the anchors. */
  readonly warning?: string
}

/**
 * Replaces (or removes) the passages of the request's prompt family in its system texts. Passages
 * are matched only by their anchors, so title and compaction requests and agents with their own
 * prompt pass through unchanged.
 */
export function steerSystemPrompt(input: SteerInput): SteerResult {
  const family = promptFamily(input.modelId, input.providerId)
  const system = [...input.system]
  const steered: string[] = []
  const notFound: string[] = []
  for (const passage of PASSAGES) {
    if (passage.family !== family) continue
    let found = false
    for (let i = 0; i < system.length; i++) {
      const span = findPassage(system[i]!, passage)
      if (!span) continue
      found = true
      if (input.todoCallable)
        system[i] = system[i]!.slice(0, span.start) + passage.pointer(span.match) + system[i]!.slice(span.end)
      else if (passage.withoutTodo === "remove") system[i] = cut(system[i]!, span, passage.shape)
      break
    }
    if (found) steered.push(passage.name)
    else notFound.push(passage.name)
  }
  const before = input.system.reduce((n, s) => n + s.length, 0)
  const saved = before - system.reduce((n, s) => n + s.length, 0)
  // Judged on the text as the host sent it: once steered, a prompt carries no leftovers.
  const leftover = LEFTOVER[family]
  const recognised = leftover !== undefined && input.system.some((s) => leftover.test(s))
  const missing = recognised ? notFound : []
  const result = { family, system, saved, steered, missing }
  if (missing.length === 0 || input.warned.has(family)) return result
  return {
    ...result,
    warning: `the ${family} system prompt no longer has the passages it is known to carry (${missing.join(", ")}); they were left as the host wrote them. Please report this with your OpenCode version.`,
  }
}
