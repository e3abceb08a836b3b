// The reference session the economy benchmark replays: a realistic plan of 5 phases of 8 tasks
// (each task text about 50 characters), worked through the way an agent works a real plan.
// After init every task is done in order, except that 3 tasks are started out of order, one task is
// blocked with a reason and unblocked much later, 2 tasks are appended to the third phase (and done),
// and the list is viewed 3 times along the way: 52 tool calls in all.
//
// Calls are the raw tool arguments the model sends, exactly as the host hands them to the plugin.

/** The plan laid out by the first call, phase by phase. */
export const REFERENCE_PLAN = [
  {
    phase: "Audit the existing billing code",
    items: [
      "Read the billing module and note its entry points",
      "List every caller of the legacy invoice generator",
      "Find where tax rounding differs between endpoints",
      "Check which nightly cron jobs touch the invoices table",
      "Record current invoice totals for a sample month",
      "Measure the slowest billing queries on the staging DB",
      "Map the webhook events sent out after each payment",
      "Write up the audit findings in the billing design doc",
    ],
  },
  {
    phase: "Design the new invoice model",
    items: [
      "Draft the table schemas for invoices and line items",
      "Decide how to store amounts in minor currency units",
      "Define the invoice status transitions and guards",
      "Choose the idempotency key format for invoice creation",
      "Sketch the REST endpoints for invoices and items",
      "Plan the indexes for the monthly statement queries",
      "Review the invoice schema with the payments team",
      "Update the design doc with the final schema decisions",
    ],
  },
  {
    phase: "Build the invoice service",
    items: [
      "Add the migration that creates the invoice tables",
      "Implement the invoice repository with transactions",
      "Port the tax calculation to integer cent arithmetic",
      "Implement invoice creation with idempotency keys",
      "Add the status transition endpoint with its checks",
      "Emit the payment webhooks from the new invoice service",
      "Wire the service into the API router behind a flag",
      "Add structured logging around every invoice write",
    ],
  },
  {
    phase: "Migrate the existing data",
    items: [
      "Write the backfill script for historical invoices",
      "Run the backfill against last week's staging snapshot",
      "Compare backfilled totals with the audit sample",
      "Fix the rounding mismatches the comparison found",
      "Schedule the production backfill window with ops",
      "Run the production backfill and watch error rates",
      "Switch reads over to the new tables behind the flag",
      "Remove the dual writes from the legacy generator",
    ],
  },
  {
    phase: "Test, document and release",
    items: [
      "Add unit tests covering the tax rounding edge cases",
      "Add integration tests for the invoice endpoints",
      "Load test invoice creation at twice peak traffic",
      "Document the invoice API in the developer guide",
      "Write the migration runbook for the on-call team",
      "Update the changelog and bump the service version",
      "Enable the flag for a tenth of all accounts first",
      "Remove the legacy invoice generator and its flag",
    ],
  },
] as const

/** Found while building the service and appended to its phase. */
export const REFERENCE_APPENDED = {
  phase: "Build the invoice service",
  items: [
    "Handle currency conversion for foreign accounts",
    "Add rate limiting to the invoice creation endpoint",
  ],
} as const

/** The task that is blocked, and why. */
export const REFERENCE_BLOCKED = {
  task: "Review the invoice schema with the payments team",
  reason: "the payments team reviews schemas only on Thursdays",
} as const

const done = (task: string) => ({ op: "done", task })
const start = (task: string) => ({ op: "start", task })
const view = () => ({ op: "view" })

/** Every call of the session, in order: raw tool arguments. */
export const REFERENCE_CALLS: readonly Readonly<Record<string, unknown>>[] = [
  { op: "init", list: REFERENCE_PLAN.map((p) => ({ phase: p.phase, items: [...p.items] })) },

  // Audit: one check is started out of order while the caller list is in progress.
  done("Read the billing module and note its entry points"),
  start("Check which nightly cron jobs touch the invoices table"),
  done("Check which nightly cron jobs touch the invoices table"),
  done("List every caller of the legacy invoice generator"),
  done("Find where tax rounding differs between endpoints"),
  done("Record current invoice totals for a sample month"),
  done("Measure the slowest billing queries on the staging DB"),
  done("Map the webhook events sent out after each payment"),
  done("Write up the audit findings in the billing design doc"),
  view(),

  // Design: the review waits on another team, so it is blocked and work moves on.
  done("Draft the table schemas for invoices and line items"),
  done("Decide how to store amounts in minor currency units"),
  done("Define the invoice status transitions and guards"),
  done("Choose the idempotency key format for invoice creation"),
  done("Sketch the REST endpoints for invoices and items"),
  done("Plan the indexes for the monthly statement queries"),
  { op: "block", task: REFERENCE_BLOCKED.task, reason: REFERENCE_BLOCKED.reason },
  done("Update the design doc with the final schema decisions"),

  // Build: the webhooks are started early; two tasks turn up and are appended.
  done("Add the migration that creates the invoice tables"),
  start("Emit the payment webhooks from the new invoice service"),
  done("Emit the payment webhooks from the new invoice service"),
  done("Implement the invoice repository with transactions"),
  { op: "append", phase: REFERENCE_APPENDED.phase, items: [...REFERENCE_APPENDED.items] },
  done("Port the tax calculation to integer cent arithmetic"),
  done("Implement invoice creation with idempotency keys"),
  done("Add the status transition endpoint with its checks"),
  done("Wire the service into the API router behind a flag"),
  view(),
  done("Add structured logging around every invoice write"),
  done("Handle currency conversion for foreign accounts"),
  done("Add rate limiting to the invoice creation endpoint"),

  // Migrate: the payments team has reviewed the schema; the review is unblocked and done next.
  done("Write the backfill script for historical invoices"),
  done("Run the backfill against last week's staging snapshot"),
  { op: "unblock", task: REFERENCE_BLOCKED.task },
  done("Compare backfilled totals with the audit sample"),
  done(REFERENCE_BLOCKED.task),
  done("Fix the rounding mismatches the comparison found"),
  done("Schedule the production backfill window with ops"),
  done("Run the production backfill and watch error rates"),
  done("Switch reads over to the new tables behind the flag"),
  done("Remove the dual writes from the legacy generator"),

  // Release: the API docs are started early; the list is viewed once more near the end.
  done("Add unit tests covering the tax rounding edge cases"),
  start("Document the invoice API in the developer guide"),
  done("Document the invoice API in the developer guide"),
  done("Add integration tests for the invoice endpoints"),
  done("Load test invoice creation at twice peak traffic"),
  view(),
  done("Write the migration runbook for the on-call team"),
  done("Update the changelog and bump the service version"),
  done("Enable the flag for a tenth of all accounts first"),
  done("Remove the legacy invoice generator and its flag"),
]
