// The host's system prompt and its passages about todo lists: where they sit and what replaces them. Which
// prompt a model id gets, where the host's own prompt sits in a request's system text, and where each passage
// sits in it. Pure: the server hands in one request's system texts and writes back what comes out (each host,
// and what replaces a passage: docs/design.md).

import type { Config } from "../config.ts"
import { TODO_TOOL } from "../list/words.ts"

/** The host's own todo tool, on 1.18 and on the OpenCode 2 builds that still register one. */
export const HOST_TODO_TOOL = "todowrite"

/** The host's todo tool is hidden from the model unless the keepTodowrite key keeps it: one rule for both hosts. */
export function hostTodoToolHidden(config: Pick<Config, "keepTodowrite">): boolean {
  return !config.keepTodowrite
}

/** Steering runs only while the built-in todowrite is off (with it on, its passages are right) and the key allows. */
export function steeringOn(config: Pick<Config, "keepTodowrite" | "steerHostPrompt">): boolean {
  return config.steerHostPrompt && hostTodoToolHidden(config)
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

/** Which host's prompt: OpenCode 1.18's (one system text) or OpenCode 2's (the first system part). */
export type PromptHost = "1.18" | "2"

/**
 * The family of OpenCode 2's prompt for a model id (packages/core/src/session/runner/system-prompt.ts@295fd249):
 * the id lower-cased, first match wins. Only `anthropic` carries passages on 2.
 */
export function v2PromptFamily(modelId: string): PromptFamily {
  const id = modelId.toLowerCase()
  if (id.includes("gpt-4") || id.includes("o1") || id.includes("o3")) return "beast"
  if (id.includes("gpt")) return "gpt"
  if (id.includes("gemini-")) return "gemini"
  if (id.includes("claude")) return "anthropic"
  if (id.includes("trinity")) return "trinity"
  if (id.includes("kimi")) return "kimi"
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
  /** A section's first body line, so a heading alone is never taken for the host's section. */
  readonly follows?: RegExp
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
    follows: /^You have access to the TodoWrite tools?\b/,
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
    follows: /^-\s+You have access to the `TodoWrite` tools?\b/,
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
    follows: /^-\s+Outline a specific, simple, and verifiable sequence\b/,
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

const passageNamed = (name: string): Passage => {
  const found = PASSAGES.find((p) => p.name === name)
  if (!found) throw new Error(`no passage ${name}`)
  return found
}

/**
 * OpenCode 2's passages (its Anthropic prompt, packages/core/src/session/runner/prompt/anthropic.txt@fd0a1072):
 * the same three places as 1.18's, naming `todowrite` in lower case; the same replacements.
 */
export const V2_PASSAGES: readonly Passage[] = [
  { ...passageNamed("Task Management section"), follows: /^You have access to the todowrite tool\b/ },
  { ...passageNamed("Doing tasks bullet"), anchor: /^-\s+Use the todowrite tool to plan the task\b/ },
  {
    ...passageNamed("Tool usage policy IMPORTANT line"),
    anchor: /^IMPORTANT:\s+Always use the todowrite tool to plan and track tasks\b/,
  },
]

/**
 * The first words of each steered family's own prompt, as the host starts the system text with it. An
 * agent with its own prompt (the built-in `explore`, any agent given a `prompt`) replaces the family's
 * prompt, so a text that does not open with these words has nothing of the host's to steer.
 */
const OPENING: Readonly<Partial<Record<PromptFamily, RegExp>>> = {
  anthropic: /^You are OpenCode, the best coding agent on the planet\./,
  muse: /^You are OpenCode, a coding agent that helps users with software engineering tasks\./,
  beast: /^You are opencode, an agent - please keep going until the user\b/,
}

/**
 * Text that shows the host's prompt still talks about todo lists, so a passage that is not found has
 * moved. A prompt already steered (by a second copy of the plugin) carries none.
 */
const LEFTOVER: Readonly<Partial<Record<PromptFamily, RegExp>>> = {
  anthropic: /TodoWrite|todowrite|todoread/,
  muse: /TodoWrite|todowrite|todoread/,
  beast: /todo lists? (in|must|using)\b/i,
}

/** What shows OpenCode 2's prompt still talks about todo lists (only its Anthropic prompt ever did). */
const V2_LEFTOVER: Readonly<Partial<Record<PromptFamily, RegExp>>> = {
  anthropic: /TodoWrite|todowrite|todoread/,
}

/** The line the host starts its environment block with, right after its own prompt. */
const environmentLine = (modelId: string): string => `\nYou are powered by the model named ${modelId}.`

/**
 * Where the host's own prompt for `family` ends in a system text: at the environment block. Undefined
 * when the text does not open with the family's prompt (an agent's own prompt, a title request, another
 * family); "unbounded" when it does but the environment block is not where the host puts it, so the
 * prompt's end is not known and nothing may be steered.
 */
function hostPromptEnd(
  text: string,
  family: PromptFamily,
  modelId: string,
  host: PromptHost = "1.18",
): number | "unbounded" | undefined {
  const opening = OPENING[family]
  if (!opening?.test(text)) return undefined
  // On 2 the family prompt is a system part of its own: the whole part is the host's.
  if (host === "2") return text.length
  const end = text.indexOf(environmentLine(modelId))
  return end > 0 ? end : "unbounded"
}

/** A section or paragraph longer than this is not the passage it looks like: the prompt's layout changed. */
const MAX_PASSAGE_CHARS = 4000

interface FoundPassage {
  readonly start: number
  readonly end: number
  readonly match: RegExpExecArray
}

const headingLevel = (line: string): number => /^(#+)\s/.exec(line)?.[1]?.length ?? 0

/** Finds a passage in the host's own prompt; undefined when its anchor or its shape is not there. */
function findPassage(prompt: string, passage: Passage): FoundPassage | undefined {
  const lines = prompt.split("\n")
  let offset = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const match = passage.anchor.exec(line)
    if (match && (!passage.follows || passage.follows.test(lines[i + 1] ?? ""))) {
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

/**
 * The host's own prompt in a system text (from its start to the environment block), or undefined when
 * the text does not hold the family's prompt where the host puts it.
 */
function hostPrompt(text: string, family: PromptFamily, modelId: string): string | undefined {
  const end = hostPromptEnd(text, family, modelId)
  return typeof end === "number" ? text.slice(0, end) : undefined
}

/** The family's passages found in the host's own prompt in a system text, with their lengths. */
export function findPassages(
  text: string,
  modelId: string,
  providerId = "",
): { readonly name: string; readonly chars: number }[] {
  const family = promptFamily(modelId, providerId)
  const prompt = hostPrompt(text, family, modelId)
  const found: { name: string; chars: number }[] = []
  if (prompt === undefined) return found
  for (const passage of PASSAGES) {
    if (passage.family !== family) continue
    const span = findPassage(prompt, passage)
    if (span) found.push({ name: passage.name, chars: span.end - span.start })
  }
  return found
}

export interface SteerInput {
  /** The request's system texts, as the host hands them to the system transform. */
  readonly system: readonly string[]
  /** The model's API id, by which the host picked the prompt and which its environment block names. */
  readonly modelId: string
  readonly providerId?: string
  /** Whether the agent of the request can call `todo`: pointers when it can, removal when it cannot. */
  readonly todoCallable: boolean
  /** Families already warned about in this process: each is warned about once. */
  readonly warned: ReadonlySet<PromptFamily>
  /** Whose prompt layout and passages: 1.18's (the default) or OpenCode 2's. */
  readonly host?: PromptHost
}

export interface SteerResult {
  readonly family: PromptFamily
  /** The system texts after steering; entries that did not change are the same strings. */
  readonly system: readonly string[]
  /** Characters removed from the system texts (negative if they grew). */
  readonly saved: number
  readonly steered: readonly string[]
  /** Passages of this family not found in the host's own prompt for it, which is present. */
  readonly missing: readonly string[]
  /** A one-time warning for the log when the host's wording or layout moved away from what is known. */
  readonly warning?: string
}

/**
 * Replaces (or removes) the passages of the request's prompt family, inside the host's own prompt
 * only. A text that does not open with the family's prompt (an agent's own prompt, a title or
 * compaction request) passes through unchanged and warns about nothing; so does everything after the
 * host's prompt: AGENTS.md files, MCP and skill texts, the request's own system text.
 */
export function steerSystemPrompt(input: SteerInput): SteerResult {
  const host = input.host ?? "1.18"
  const family = host === "2" ? v2PromptFamily(input.modelId) : promptFamily(input.modelId, input.providerId)
  const system = [...input.system]
  const passages = (host === "2" ? V2_PASSAGES : PASSAGES).filter((p) => p.family === family)
  const leftover = (host === "2" ? V2_LEFTOVER : LEFTOVER)[family]
  const steered: string[] = []
  let missing: string[] = []
  let present = false
  for (let i = 0; i < system.length && passages.length > 0; i++) {
    const text = system[i]!
    const end = hostPromptEnd(text, family, input.modelId, host)
    if (end === undefined) continue
    present = true
    if (end === "unbounded") {
      missing = passages.map((p) => p.name)
      break
    }
    let prompt = text.slice(0, end)
    // Judged on the prompt as the host wrote it: once steered, it carries no leftovers.
    const talksOfTodo = leftover?.test(prompt) === true
    for (const passage of passages) {
      const span = findPassage(prompt, passage)
      if (!span) {
        if (talksOfTodo) missing.push(passage.name)
        continue
      }
      steered.push(passage.name)
      if (input.todoCallable)
        prompt = prompt.slice(0, span.start) + passage.pointer(span.match) + prompt.slice(span.end)
      else if (passage.withoutTodo === "remove") prompt = cut(prompt, span, passage.shape)
    }
    if (prompt.length !== end || prompt !== text.slice(0, end)) system[i] = prompt + text.slice(end)
    break
  }
  const before = input.system.reduce((n, s) => n + s.length, 0)
  const saved = before - system.reduce((n, s) => n + s.length, 0)
  const result = { family, system, saved, steered, missing: present ? missing : [] }
  if (result.missing.length === 0 || input.warned.has(family)) return result
  return {
    ...result,
    warning: `the ${host === "2" ? "OpenCode 2 " : ""}${family} system prompt no longer has the passages it is known to carry where it is known to carry them (${result.missing.join(", ")}); they were left as the host wrote them. Please report this with your OpenCode version.`,
  }
}
