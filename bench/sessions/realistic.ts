// The realistic session the economy benchmark replays beside the reference one: the shape of the sessions
// people have. A plan of 4 phases of 15 tasks (task texts about 50 characters), worked through in 20 todo
// updates after the plan (21 todo calls in all), each a batch that marks the 3 or 4 tasks finished since the
// last update done; 2 tasks are appended to the third phase, 1 task is blocked with a reason and unblocked
// later. Between the todo calls the agent works: 178 bash, read and edit calls, spread evenly, so a session
// is 199 tool calls and 200 model requests. A `todowrite` agent doing the same work writes its whole list
// once per task: once for the plan, then once per op of each update (each task done, the block, the
// unblock, the append).
//
// A shorter session for CI keeps the same 21 todo calls and the same plan with 38 other calls (60 requests):
// what a request carries of the todo tool depends only on the todo calls made before it, so the 200-request
// figures are computed from it (bench/economy-realistic.measure.ts says how).

const PHASES = [
  {
    phase: "Map the current search indexing code",
    items: [
      "Read the indexer entry point and list its callers",
      "Trace how documents reach the tokenizer today",
      "Find every place that writes to the legacy index",
      "Measure indexing throughput on the staging corpus",
      "List the query types the search endpoint accepts",
      "Record the p95 latency of the ten slowest queries",
      "Check how deletes propagate to the search index",
      "Note which fields are stored and which are indexed",
      "Find the cron jobs that rebuild the index nightly",
      "Read the ranking code and note its tuning knobs",
      "List the analyzers configured for each language",
      "Check how the index handles documents over 1 MB",
      "Find the tests that cover the current ranking",
      "Collect the search bugs filed in the last quarter",
      "Write up the findings in the search design doc",
    ],
  },
  {
    phase: "Design the new search index",
    items: [
      "Draft the document schema for the new index",
      "Decide which fields get per-language analyzers",
      "Choose the shard count for the expected corpus",
      "Define the update path for edited documents",
      "Design the delete path so tombstones expire",
      "Plan the ranking features for the first version",
      "Review the schema with the relevance team",
      "Sketch the query API and its pagination tokens",
      "Decide how to version the index for reindexing",
      "Plan the backfill from the primary database",
      "Define the metrics the indexer must export",
      "Write the alerting rules for indexing lag",
      "Estimate the storage cost for a year of growth",
      "Plan the dual-read period and its comparison",
      "Update the design doc with the final decisions",
    ],
  },
  {
    phase: "Build the search service",
    items: [
      "Add the index templates and the schema migration",
      "Implement the document mapper for each entity",
      "Write the bulk indexer with retries and backoff",
      "Implement the update path for edited documents",
      "Implement tombstones for deleted documents",
      "Add the query builder for the supported filters",
      "Implement ranking with the first feature set",
      "Add pagination tokens to the search endpoint",
      "Export indexing metrics to the metrics pipeline",
      "Add the alerting rules for indexing lag",
      "Wire the new service behind the search flag",
      "Add integration tests for the query builder",
      "Add load tests for bulk indexing at peak rate",
      "Write the backfill job for historical documents",
      "Add structured logging around every index write",
    ],
  },
  {
    phase: "Roll out and document search",
    items: [
      "Run the backfill against the staging snapshot",
      "Compare staging results with the legacy index",
      "Fix the ranking differences the comparison found",
      "Schedule the production backfill with the on-call",
      "Run the production backfill and watch the lag",
      "Enable dual reads for a tenth of all users",
      "Compare dual-read results for a full week",
      "Switch all reads to the new index behind the flag",
      "Remove the writes to the legacy index",
      "Delete the nightly rebuild cron jobs",
      "Document the query API in the developer guide",
      "Write the runbook for reindexing and recovery",
      "Update the changelog and bump the service version",
      "Announce the new search to the support team",
      "Remove the legacy indexer and its feature flag",
    ],
  },
] as const

/** Found while building the service and appended to its phase. */
export const REALISTIC_APPENDED = {
  phase: "Build the search service",
  items: ["Handle synonyms for the product name queries", "Cap the query length the endpoint accepts"],
} as const

/** The task that waits on another team, and why. */
export const REALISTIC_BLOCKED = {
  task: "Review the schema with the relevance team",
  reason: "the relevance team reviews schemas only on Thursdays",
} as const

export const REALISTIC_PLAN = PHASES

type Call = Readonly<Record<string, unknown>>
const done = (task: string): Call => ({ op: "done", task })

/** Tasks in the order the agent finishes them: list order, the appended ones at the end of their phase, the blocked one late. */
function finishingOrder(): string[] {
  const order: string[] = []
  for (const phase of PHASES) {
    order.push(...phase.items.filter((task) => task !== REALISTIC_BLOCKED.task))
    if (phase.phase === REALISTIC_APPENDED.phase) order.push(...REALISTIC_APPENDED.items)
  }
  // The review is done once it is unblocked, at the start of the last phase.
  order.splice(order.indexOf(PHASES[3].items[2]), 0, REALISTIC_BLOCKED.task)
  return order
}

/** The 20 updates after the plan: each a batch of ops. */
function updates(): Call[][] {
  const order = finishingOrder()
  const total = order.length
  const out: Call[][] = []
  let at = 0
  for (let u = 0; u < 20; u++) {
    const until = Math.round(((u + 1) * total) / 20)
    const ops: Call[] = order.slice(at, until).map(done)
    at = until
    // The review is blocked in the design phase, unblocked once the team has looked, and done right after.
    if (u === 5) ops.push({ op: "block", task: REALISTIC_BLOCKED.task, reason: REALISTIC_BLOCKED.reason })
    if (u === 9)
      ops.push({ op: "append", phase: REALISTIC_APPENDED.phase, items: [...REALISTIC_APPENDED.items] })
    if (ops.some((op) => op.task === REALISTIC_BLOCKED.task && op.op === "done"))
      ops.unshift({ op: "unblock", task: REALISTIC_BLOCKED.task })
    out.push(ops)
  }
  return out
}

/** The 21 todo calls: the plan, then the 20 updates, each sent as `{ops}`. */
export const REALISTIC_TODO_CALLS: readonly Call[] = [
  { op: "init", list: PHASES.map((p) => ({ phase: p.phase, items: [...p.items] })) },
  ...updates().map((ops) => ({ ops })),
]

/** The same work as single ops, one `todowrite` after each: the plan, then every op of every update. */
export const REALISTIC_SINGLE_OPS: readonly Call[] = [REALISTIC_TODO_CALLS[0]!, ...updates().flat()]

export const REALISTIC_REQUESTS = 200
export const REALISTIC_SHORT_REQUESTS = 60

/** A work call between todo calls, as the agent sends it: the n-th of the session. */
export type WorkCall =
  | { readonly tool: "read"; readonly file: number }
  | { readonly tool: "edit"; readonly file: number; readonly slot: number }
  | { readonly tool: "bash"; readonly file: number }

/** Files the work calls read and edit, and their number of editable slots. */
export const WORK_FILES = 8
export const WORK_SLOTS = 24

/** The n-th work call: a read of a file, an edit of one of its slots, a bash command over it, in turn. */
export function workCall(n: number): WorkCall {
  const cycle = Math.floor(n / 3)
  const file = cycle % WORK_FILES
  const kind = n % 3
  if (kind === 0) return { tool: "read", file }
  if (kind === 1) return { tool: "edit", file, slot: Math.floor(cycle / WORK_FILES) }
  return { tool: "bash", file }
}

/**
 * Where the `todoCalls` todo calls go among `requests - 1` tool calls (one per request, the last request
 * answered with text): todo call j at call floor(j × (requests − 1) / todoCalls), the others work calls.
 * Returns, per tool call, the index of the todo call made there, or -1 for a work call.
 */
export function schedule(todoCalls: number, requests: number): number[] {
  const calls = requests - 1
  const slots = new Array<number>(calls).fill(-1)
  for (let j = 0; j < todoCalls; j++) slots[Math.floor((j * calls) / todoCalls)] = j
  return slots
}
