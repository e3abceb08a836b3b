// Runs one tool call against a list: parse, apply each op in order, then normalize once, all-or-nothing.
// The single entry point the tool and the /todo command use to change a list.

import {
  batchError,
  opNameOf,
  parseOp,
  splitCall,
  type UnusedFields,
  unusedBesideOps,
  unusedFields,
} from "./parse.ts"
import { applyOp, normalize } from "./reducers.ts"
import type { Result } from "./result.ts"
import type { Change, Limits, Op, OpName, TodoList } from "./types.ts"
import { DEFAULT_LIMITS } from "./types.ts"
import { tooManyOpsText } from "./words.ts"

export interface ExecuteSuccess {
  readonly ok: true
  readonly list: TodoList
  /** Every change of every op, in order, normalization included. */
  readonly changes: Change[]
  /** The ops as parsed and applied. */
  readonly ops: Op[]
  /** Fields the call sent that no op read, the call's own first; absent when there are none. */
  readonly unused?: readonly UnusedFields[]
}

export interface ExecuteFailure {
  readonly ok: false
  /** The very same object that was passed in: a failed call changes nothing. */
  readonly list: TodoList
  /** A sentence for the model; in a batch it starts with "op N (name) failed: ". */
  readonly error: string
  /** 0-based index of the op that failed; absent when the call as a whole was malformed. */
  readonly opIndex?: number
}

export type ExecuteResult = ExecuteSuccess | ExecuteFailure

type NextOp = (index: number, current: TodoList) => Result<Op> & { readonly name?: OpName | undefined }

function run(list: TodoList, count: number, batch: boolean, limits: Limits, next: NextOp): ExecuteResult {
  let current = list
  const changes: Change[] = []
  const ops: Op[] = []
  let changing = false
  const failure = (index: number, name: OpName | undefined, error: string): ExecuteFailure => ({
    ok: false,
    list,
    error: batch ? batchError(index, name, error) : error,
    opIndex: index,
  })
  for (let i = 0; i < count; i++) {
    const parsed = next(i, current)
    if (!parsed.ok) return failure(i, parsed.name, parsed.error)
    const op = parsed.value
    // view only reads: it hands back the list it was given, so the caller has nothing to write.
    if (op.op === "view") {
      ops.push(op)
      continue
    }
    const applied = applyOp(current, op, limits)
    if (!applied.ok) return failure(i, op.op, applied.error)
    current = applied.value.list
    changes.push(...applied.value.changes)
    ops.push(op)
    changing = true
  }
  // Auto-start runs once, after the whole batch: `done` then `append` after the finished task starts the
  // appended task (when nothing pending comes before it), not one the list would have started between the ops. No op leaves two tasks in progress (start demotes).
  if (!changing) return { ok: true, list: current, changes, ops }
  const normal = normalize(current)
  return { ok: true, list: normal.list, changes: [...changes, ...normal.changes], ops }
}

/**
 * Executes raw tool arguments (`{op, ...}` or `{ops: [...]}`). Each op of a batch is parsed against the
 * list the earlier ops produced, so inference sees the list as it will be when the op runs.
 */
export function execute(list: TodoList, rawArgs: unknown, limits: Limits = DEFAULT_LIMITS): ExecuteResult {
  const split = splitCall(rawArgs, limits)
  if (!split.ok) return { ok: false, list, error: split.error }
  const { batch, raws } = split.value
  const beside = batch ? unusedBesideOps(rawArgs) : undefined
  const unused: UnusedFields[] = beside === undefined ? [] : [beside]
  const result = run(list, raws.length, batch, limits, (i, current) => {
    const parsed = parseOp(raws[i], current, limits)
    if (!parsed.ok) return { ...parsed, name: opNameOf(raws[i], current) }
    const stray = unusedFields(raws[i], parsed.value, batch ? i : undefined)
    if (stray !== undefined) unused.push(stray)
    return parsed
  })
  return result.ok && unused.length > 0 ? { ...result, unused } : result
}

/** Executes ops that are already typed (the /todo command builds its own). More than one op is a batch. */
export function executeOps(
  list: TodoList,
  ops: readonly Op[],
  limits: Limits = DEFAULT_LIMITS,
): ExecuteResult {
  if (ops.length > limits.maxOpsPerCall)
    return { ok: false, list, error: tooManyOpsText(ops.length, limits.maxOpsPerCall) }
  return run(list, ops.length, ops.length > 1, limits, (i) => ({ ok: true, value: ops[i]! }))
}
