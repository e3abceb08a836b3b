// The length budget of every text the model reads, in characters: one table, checked by a test that
// renders each text (list-dependent ones on the test's fixed sample list). A budget is the text's
// length when it was first budgeted; a text may shrink, and a budget is lowered with it, never raised.
// The fixed texts here ride on every request or every notice, so a few characters each add up over a
// session (bench/economy-session.measure.ts).

export const TEXT_BUDGETS = {
  /** The `todo` tool description (prompts.ts TOOL_DESCRIPTION). */
  toolDescription: 837,
  /** Tool argument descriptions in the JSON schema (prompts.ts ARG_DESCRIPTIONS), each. */
  argReason: 34,
  argList: 47,
  argOps: 44,
  /** The `todo-discipline` skill's description, listed in every system prompt. */
  skillDescription: 235,
  subagentRefusal: 131,
  marker: 57,
  preludePreferred: 168,
  preludeAlways: 206,
  // Rendered on the sample list of test/text-budgets.test.ts.
  reminder: 374,
  compactionContext: 269,
  noticeResumed: 293,
  noticeCompacted: 301,
  /** A fork's or an import's list that differs from what its conversation shows (tracker.ts "carried"). */
  noticeCarried: 286,
  noticeEdits: 336,
  noticeNudge: 237,
  commandChanged: 392,
  commandViewed: 216,
  commandFailed: 214,
  /** What old parts of the history go out as (prompts.ts STALE_STUB and its siblings, core/stale.ts). */
  staleNotice: 65,
  staleResult: 73,
  staleFailed: 73,
  // What replaces the host prompt's todo passages (host-prompt.ts PASSAGES), by passage name.
  "Task Management section": 261,
  "Doing tasks bullet": 45,
  "Tool usage policy IMPORTANT line": 63,
  "TodoWrite Tools section": 266,
  "end-of-turn paragraph": 190,
  "resume paragraph": 204,
  "keep-working paragraph": 202,
  "Workflow plan step": 81,
  "Develop a Detailed Plan section": 286,
  "Writing Prompts todo-list line": 49,
} as const satisfies Record<string, number>

export type BudgetedText = keyof typeof TEXT_BUDGETS
