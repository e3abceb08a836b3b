// The list history as the record stores it (history.ts): written without its derived lists, and read back
// span by span against the stored list in effect. Reading checks every span's form (linear in the record) and
// replays the newest span only; a span over the caps makes the record's history unreadable (the list is
// kept), and an older span that does not replay says so when an undo or a fork reaches it.

import { isRecord } from "../list/result.ts"
import type { Limits, TodoList } from "../list/types.ts"
import { DEFAULT_LIMITS } from "../list/types.ts"
import { isPendingEdit } from "./edits.ts"
import { currentList, historyFrom, type ListHistory } from "./history.ts"
import { recordEdit } from "./placement.ts"
import { revert } from "./revert.ts"
import { fromRows, sameRows, toRows } from "./rows.ts"
import {
  compare,
  HISTORY_CAPS,
  isPoint,
  isSpan,
  isSpanShape,
  type Meter,
  type Point,
  type Pos,
  replay,
  type Span,
  tailOf,
  walk,
} from "./spans.ts"

/** The history as the record stores it: the derived lists left out (the record holds the list in effect). */
export function encodeHistory(history: ListHistory): unknown {
  const spans = history.spans.map((s) => ({ l: s.l, e: s.e }))
  return history.rev === undefined
    ? { v: 1, spans }
    : { v: 1, spans, rev: { at: history.rev.at, edits: history.rev.edits } }
}

/** Reads a stored history span by span, so a caller holding a big record can pause between spans. */
export interface HistoryReader {
  /** Checks the next stored span's form and the order of its positions; false once the history is unreadable. */
  add(span: unknown): boolean
  /** The history read, with `rev` the stored revert (undefined: none), as decodeHistory answers it. */
  end(rev: unknown): { readonly history: ListHistory; readonly warning?: string }
}

/**
 * Reads a stored history against the stored list in effect. A history that is malformed or does not replay
 * (every span must end where the next checkpoint starts) is replaced by a history of `list` alone, with a
 * warning: the list is never lost, only the way back. One that does not end in `list` gets `list` recorded
 * as a user edit made last.
 */
export function decodeHistory(
  raw: unknown,
  list: TodoList,
  limits: Limits = DEFAULT_LIMITS,
  meter?: Meter,
): { readonly history: ListHistory; readonly warning?: string } {
  if (!isRecord(raw) || raw.v !== 1) return unreadable(list, "unknown form")
  const reader = historyReader(list, limits, meter)
  const spans = raw.spans
  if (Array.isArray(spans)) for (const span of spans) if (!reader.add(span)) break
  return reader.end(raw.rev)
}

function unreadable(
  list: TodoList,
  why: string,
): { readonly history: ListHistory; readonly warning: string } {
  return {
    history: historyFrom(list),
    warning: `The stored list history is unreadable (${why}); the list was kept, but undo cannot go back before it.`,
  }
}

/** decodeHistory's reader, for a history of form v1 whose spans are fed to it one at a time, in order. */
export function historyReader(list: TodoList, limits: Limits = DEFAULT_LIMITS, meter?: Meter): HistoryReader {
  const spans: Span[] = []
  let problem: string | undefined
  let previous: Pos | undefined

  // Every span's form and the order of every position: linear in the record. Only the newest span is
  // replayed here; the others when an undo or a fork reaches them (replay checks their steps then).
  function add(span: unknown): boolean {
    if (problem !== undefined) return false
    const i = spans.length
    try {
      if (!isSpanShape(span) || (i > 0 && span.e.length === 0)) problem = `span ${i + 1} is malformed`
      else {
        let count = 0
        for (const { pos } of walk(span)) {
          if (previous !== undefined && compare(pos, previous) < 0) {
            problem = `span ${i + 1} is out of order`
            break
          }
          previous = pos
          count++
        }
        if (problem === undefined && count !== span.e.length) problem = `span ${i + 1} has a bad id`
      }
    } catch {
      problem = `span ${i + 1} is malformed`
    }
    if (problem !== undefined) return false
    spans.push(span as Span)
    return true
  }

  function end(rev: unknown): { readonly history: ListHistory; readonly warning?: string } {
    try {
      if (problem !== undefined) return unreadable(list, problem)
      if (spans.length === 0) return unreadable(list, "no checkpoints")
      const newest = spans[spans.length - 1]!
      if (!isSpan(newest)) return unreadable(list, `span ${spans.length} is malformed`)
      const replayed = replay(newest, undefined, meter)
      if (replayed.broken) return unreadable(list, `span ${spans.length} does not replay`)
      const top = fromRows(replayed.rows)
      if (top === undefined) return unreadable(list, "the newest list does not read")
      const tail = tailOf(newest)
      if (tail === undefined) return unreadable(list, "the newest span does not replay")
      let history: ListHistory = { v: 1, spans, top, tail: tail.tail }
      if (rev !== undefined) {
        if (
          !isRecord(rev) ||
          !isPoint(rev.at) ||
          !Array.isArray(rev.edits) ||
          rev.edits.length > HISTORY_CAPS.pendingEdits ||
          !rev.edits.every(isPendingEdit)
        )
          return unreadable(list, "the revert is malformed")
        const at: Point =
          rev.at.part === undefined
            ? { message: rev.at.message }
            : { message: rev.at.message, part: rev.at.part }
        history = revert({ ...history, rev: { at, edits: rev.edits } }, at, limits).history
      }
      // A list changed beside its history (an older writer, a hand edit) is taken as a user edit made last.
      if (!sameRows(toRows(currentList(history)), toRows(list)))
        history = recordEdit(history, {}, list).history
      return { history }
    } catch {
      return {
        history: historyFrom(list),
        warning:
          "The stored list history is unreadable; the list was kept, but undo cannot go back before it.",
      }
    }
  }

  return { add, end }
}
