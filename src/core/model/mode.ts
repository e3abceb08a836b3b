// How much guidance the model gets. "full": the whole tool description, and the prelude and nudges the config
// asks for. "lean": a few lines of description, no prelude, no nudge; the completion reminder (a stop with work
// open), the notices about what the user did, the sidebar, /todo and undo are the same in both. The config's
// `mode` picks one, or `auto` picks lean for the model families in PLANS_UNAIDED: a pure table on the model id.

import type { Mode } from "../config.ts"

export type Guidance = "full" | "lean"

/** Where a family's name may start in an id: the id's start, or after a provider prefix (`anthropic/`, `us.anthropic.`). */
const START = "(?:^|[/.:])"
/** Where it must end: the id's end, or a separator before a date, a variant or a version suffix. */
const END = "(?=$|[-.@:_])"

/**
 * Model families taken to plan multi-step work unaided: the newest generation of the two families the leading
 * coding agents are tuned for, the ones those agents' todo tools went off by default for. For them the full
 * description and a plan-first prelude are paid on every request and buy little; the reminder at a stop with
 * work open still pays (a model that plans well still stops early at times). Older and other families keep
 * the full guidance until measured otherwise. Ids are matched lowercased, the family's name whole.
 */
export const PLANS_UNAIDED: readonly { family: string; why: string; pattern: RegExp }[] = [
  {
    family: "Claude 4.5 and later (Opus, Sonnet, Haiku)",
    why: "built for long agentic runs: keeps its plan and progress in its own context",
    pattern: new RegExp(
      `${START}claude-(?:(?:opus|sonnet|haiku)-(?:4[-.][5-9]|[5-9])|(?:4[-.][5-9]|[5-9])-(?:opus|sonnet|haiku))${END}`,
    ),
  },
  {
    family: "GPT-5.1 and later (codex variants included)",
    why: "plans in its reasoning and reports its own progress between tool calls",
    pattern: new RegExp(`${START}gpt-5\\.[1-9]\\d*${END}`),
  },
]

/** Model ids longer than this are no known family's (a provider's id is a few dozen characters). */
const MAX_ID = 200

/** Whether the model with this id is in a family that plans unaided. */
export function plansUnaided(modelID: string | undefined | null): boolean {
  if (!modelID || modelID.length > MAX_ID) return false
  const id = modelID.toLowerCase()
  return PLANS_UNAIDED.some((row) => row.pattern.test(id))
}

/** The guidance a request to `modelID` gets under the config's `mode`. */
export function guidanceFor(mode: Mode, modelID: string | undefined | null): Guidance {
  return guidanceOf(mode, mode === "auto" && plansUnaided(modelID))
}

/** The same, once it is known whether the model plans unaided (a session remembers only that). */
export function guidanceOf(mode: Mode, unaided: boolean): Guidance {
  if (mode === "auto") return unaided ? "lean" : "full"
  return mode
}

/**
 * Whether the todo-discipline skill is offered. Its entry rides in every system prompt, so lean mode leaves it
 * out; `auto` registers it once for all the models a process serves (the host lists skills per process).
 */
export function offersSkill(mode: Mode): boolean {
  return mode !== "lean"
}
