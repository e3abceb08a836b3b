// The todo list's data model, the typed shape of every op and change, and the limits. The core's modules
// pass these around; how a status is written lives in words.ts.

export const STATUSES = ["pending", "in_progress", "completed", "abandoned", "blocked"] as const
export type TaskStatus = (typeof STATUSES)[number]

/** Closed tasks are finished one way or the other; they count as done and never auto-start. */
export const CLOSED: ReadonlySet<TaskStatus> = new Set(["completed", "abandoned"])
/** Open tasks still need work. Blocked tasks are open but counted apart. */
export const OPEN: ReadonlySet<TaskStatus> = new Set(["pending", "in_progress", "blocked"])

export interface Task {
  readonly text: string
  readonly status: TaskStatus
  /**
   * One-line reason: why the task is blocked, or why it was dropped. Present only while the task is blocked
   * or dropped (stored under this name since reasons were only blockers').
   */
  readonly blocker?: string
}

export interface Phase {
  readonly name: string
  readonly tasks: readonly Task[]
}

/** The whole list: phases in order. Task texts are unique across the list, phase names too. */
export type TodoList = readonly Phase[]

/** What an op acts on. A task is named by its exact text, a phase by its exact name. */
export type Target =
  | { readonly kind: "task"; readonly text: string }
  | { readonly kind: "phase"; readonly name: string }
  | { readonly kind: "all" }

/**
 * A task target that may also name the phase the task is expected in (the model gave both `task` and `phase`).
 * It is structurally a task Target, so it travels inside an Op; the reducers check the phase when present.
 */
export interface ScopedTaskTarget {
  readonly kind: "task"
  readonly text: string
  readonly phase?: string
}

export interface PhaseSpec {
  readonly phase: string
  readonly items: readonly string[]
}

export type Op =
  | { readonly op: "init"; readonly list: readonly PhaseSpec[] }
  /** A start's or a done's reason is reported, not kept: an open or done task carries none. */
  | { readonly op: "start"; readonly target: Target & { kind: "task" }; readonly reason?: string }
  | { readonly op: "done"; readonly target: Target; readonly reason?: string }
  | { readonly op: "drop"; readonly target: Target; readonly reason?: string }
  | { readonly op: "block"; readonly target: Target; readonly reason?: string }
  /** The reason (why the wait is over) is reported, not kept: a pending task carries none. */
  | { readonly op: "unblock"; readonly target: Target; readonly reason?: string }
  /** The reason is reported with what was removed; nothing keeps it. */
  | { readonly op: "rm"; readonly target: Target; readonly reason?: string }
  /** Adds to the end of `phase`, or right after the task `after` (in its phase; `phase`, if given, must agree). */
  | {
      readonly op: "append"
      readonly phase?: string
      readonly after?: string
      readonly items: readonly string[]
    }
  /** Gives a task or a phase a new exact text; its place, status and reason stay. */
  | { readonly op: "rename"; readonly target: Exclude<Target, { kind: "all" }>; readonly to: string }
  | { readonly op: "view" }

export type OpName = Op["op"]
export const OP_NAMES: readonly OpName[] = [
  "init",
  "start",
  "done",
  "drop",
  "block",
  "unblock",
  "rm",
  "append",
  "rename",
  "view",
]

/** A task as it was before an init brought it back as pending. */
export interface Settled {
  readonly text: string
  readonly status: TaskStatus
  readonly reason?: string
}

/** One observable effect of an op, in the order it happened. `format` turns these into words. */
export type Change =
  | {
      readonly kind: "init"
      readonly phases: number
      readonly tasks: number
      /** Counts of the list that init replaced, when it was not empty. */
      readonly replaced?: Counts
      /** Open tasks of the replaced list that the new one lacks, the one in progress first. */
      readonly discarded?: readonly string[]
      /** The task that was in progress, when it is among the discarded. */
      readonly discardedRunning?: string
      /** Tasks of the new list that were done, dropped or blocked in the replaced one: init makes them pending. */
      readonly settledBefore?: readonly Settled[]
    }
  | {
      readonly kind: "status"
      readonly task: string
      readonly from: TaskStatus
      readonly to: TaskStatus
      /** Set when normalization made this change, not the op itself. */
      readonly auto?: "promoted" | "demoted"
      /**
       * The reason the op gave: kept on the task by block and drop, only reported for unblock, start and done
       * (the task they leave carries none).
       */
      readonly reason?: string
      /** The reason a blocked task carried when a start took it out of blocked. */
      readonly wasBlockedFor?: string
    }
  | {
      readonly kind: "added"
      readonly phase: string
      readonly tasks: readonly string[]
      readonly newPhase: boolean
      /** The task they were inserted after; absent when they went to the end of the phase. */
      readonly after?: string
      /** For a new phase: an existing phase with a close name, which the model may have meant. */
      readonly closeTo?: string
    }
  | { readonly kind: "renamed"; readonly what: "task" | "phase"; readonly from: string; readonly to: string }
  | {
      readonly kind: "removed"
      readonly tasks: readonly string[]
      readonly phases: readonly string[]
      /** Why, when the rm said: reported, not kept. */
      readonly reason?: string
    }
  /** The op asked for what already held (e.g. done on a completed task). Success, nothing changed. */
  | {
      readonly kind: "unchanged"
      readonly task: string
      readonly status: TaskStatus
      readonly reason?: string
    }

export interface Counts {
  readonly total: number
  /** completed + abandoned */
  readonly closed: number
  readonly completed: number
  readonly abandoned: number
  readonly blocked: number
  readonly pending: number
  readonly inProgress: number
  readonly phases: number
}

/** Limits that keep a runaway model from flooding its own context or the sidebar. */
export interface Limits {
  readonly maxTaskChars: number
  readonly maxTasks: number
  readonly maxPhases: number
  readonly maxOpsPerCall: number
}

export const DEFAULT_LIMITS: Limits = {
  maxTaskChars: 300,
  maxTasks: 200,
  maxPhases: 30,
  maxOpsPerCall: 50,
}
