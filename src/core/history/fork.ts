// Which session a fork was made from, and where: from the fork's title, the copies of its source's messages
// and the candidates the host lists. Pure: the adapter asks the host and reads the records.

/*
 * How the host forks (1.18.33): the new session has no parent field (that marks subagents), is titled
 * "<source title> (fork #N)" (a source already titled "X (fork #N)" gives "X (fork #N+1)"), and holds copies
 * of the source's messages before the fork point with new ids. A copy keeps everything else: role, the time
 * it was written, its parts, the call ids and results of its tool parts.
 * The rules.
 * - The copies are the fork's leading messages written before the fork itself was created; anything later
 *   was said in the fork.
 * - A candidate is a session with the source title, created before the fork. It is the source when its first
 *   messages are the copies, message by message: same role, same time written, same todo call ids. The fork
 *   point is the candidate's message right after them (none: the fork copied all it had).
 * - Nothing is decided without a copy to compare, and two candidates that both fit are not told apart: the
 *   fork then starts from its own conversation (rebuild.ts), never from a guess.
 */

import type { TodoList } from "../list/types.ts"
import { historyFrom, type ListHistory, listAt, recordedIn, stateAtCall } from "./history.ts"
import {
  historyReaching,
  type Reached,
  type Transcript,
  type TranscriptList,
  type TranscriptMessage,
} from "./rebuild.ts"
import { listForCopy } from "./revert.ts"

const FORK_TITLE = /^(.+) \(fork #(\d+)\)$/

/** The title the fork's source had, when `title` is a fork's; undefined otherwise. */
export function sourceTitle(title: string): string | undefined {
  const match = FORK_TITLE.exec(title)
  if (!match) return undefined
  const n = Number(match[2])
  if (!Number.isSafeInteger(n) || n < 1) return undefined
  return n === 1 ? match[1]! : `${match[1]} (fork #${n - 1})`
}

/** How many leading messages of the fork are copies: written before the fork was created. */
export function copiedCount(fork: Transcript, forkCreated: number): number {
  let n = 0
  while (n < fork.length && (fork[n]!.created ?? Number.POSITIVE_INFINITY) < forkCreated) n++
  return n
}

function sameMessage(copy: TranscriptMessage, source: TranscriptMessage): boolean {
  if (copy.role !== source.role || copy.created !== source.created) return false
  if (copy.calls.length !== source.calls.length) return false
  return copy.calls.every((id, i) => id === source.calls[i])
}

/** A session the host lists: what picking candidates needs. */
export interface ListedSession {
  readonly id: string
  readonly title: string
  readonly created: number | undefined
}

/**
 * The sessions worth reading as the fork's source, likeliest first, at most `max`: the source title exactly,
 * created before the fork, the ones created closest to the first copied message first (a session is created
 * just before its first message; a fork of a fork, after its copies were first written).
 */
export function pickCandidates(
  listed: readonly ListedSession[],
  fork: {
    readonly id: string
    readonly title: string
    readonly created: number
    readonly firstCopied: number
  },
  max: number,
): string[] {
  const distance = (s: ListedSession) => Math.abs(s.created! - fork.firstCopied)
  return listed
    .filter(
      (s) =>
        s.id !== fork.id && s.title === fork.title && s.created !== undefined && s.created < fork.created,
    )
    .sort((a, b) => distance(a) - distance(b))
    .slice(0, max)
    .map((s) => s.id)
}

export interface Candidate {
  readonly id: string
  readonly messages: Transcript
}

export type SourceMatch =
  /** `point`: the source's first message not copied; undefined when the fork copied every message. */
  | { readonly kind: "found"; readonly sourceID: string; readonly point: string | undefined }
  | { readonly kind: "none" }
  | { readonly kind: "ambiguous"; readonly ids: readonly string[] }

/** The candidate whose first messages are the fork's `copied` copies, and the fork point in it. */
export function matchSource(fork: Transcript, copied: number, candidates: readonly Candidate[]): SourceMatch {
  if (copied === 0) return { kind: "none" }
  const fits = candidates.filter(
    (c) =>
      c.messages.length >= copied && fork.slice(0, copied).every((m, i) => sameMessage(m, c.messages[i]!)),
  )
  if (fits.length === 0) return { kind: "none" }
  if (fits.length > 1) return { kind: "ambiguous", ids: fits.map((c) => c.id) }
  const source = fits[0]!
  return { kind: "found", sourceID: source.id, point: source.messages[copied]?.id }
}

/** The todo call ids the copies hold, oldest first: what the source's history must know. */
export function copiedCalls(fork: Transcript, copied: number): string[] {
  return fork.slice(0, copied).flatMap((m) => m.calls)
}

/** What the source's record says at the fork point, when its record is there to say it. */
export interface SourceState {
  /** The source's list strictly before the fork point, from its anchored history. */
  readonly list: TodoList
  /**
   * The source's history saw the copied messages: it recorded a copied todo call, or a change anchored in a
   * copied message (a call, a /todo command's edit, a dialog edit), so its list at the fork point can be trusted.
   */
  readonly knowsCopies: boolean
  /** The source's list before the first copied message. */
  readonly base: TodoList
  /** The source's list after each copied message, anchored at its copy: the fork's history. */
  readonly reached: readonly Reached[]
}

/**
 * What the source's anchored history says at the fork point, the source being `source` (its messages) and
 * the fork's first `copied` messages its copies. The record is the source's (the title and the copies matched
 * it, call ids included); it can answer for the fork point when it saw the copied messages: it recorded one of
 * the copied todo calls, or any change anchored in a copied message (a call that changed nothing, a view or a
 * failed call, is not recorded, so copies holding only those prove it by the user edits made at them). With no
 * call copied there is nothing to check. A record that saw none of the copies (a record written before
 * histories, or one whose history was dropped) cannot say what the list was then. A history that cannot
 * answer for a point says nothing.
 */
export function sourceStateAt(
  history: ListHistory,
  source: Transcript,
  fork: Transcript,
  copied: number,
): SourceState | undefined {
  if (copied === 0 || source.length < copied) return undefined
  const before = (index: number) => {
    const message = source[index]?.id
    return listAt(history, message === undefined ? undefined : { message })
  }
  // The fork's own list carries the edits the source made while undone, if the fork starts at or after that point.
  const forkPoint = source[copied]?.id
  const at = listForCopy(history, forkPoint === undefined ? undefined : { message: forkPoint })
  const base = before(0)
  if (at.warning !== undefined || base.warning !== undefined) return undefined
  const reached: Reached[] = []
  for (let i = 0; i < copied; i++) {
    const copy = fork[i]!
    const calls = copy.calls
    // What the source had at the start of the message, before its first call (a /todo command's edit settles
    // there), then each copied call at its own part with the list the source had after it (before its next
    // call's part): an undo in the fork to a part of a copied message keeps what came before that part.
    const first = source[i]!.parts?.[0]
    if (i > 0 && first !== undefined) {
      const start = listAt(history, { message: source[i]!.id, part: first })
      if (start.warning !== undefined) return undefined
      reached.push({ message: copy.id, start: true, list: start.list })
    }
    for (let j = 0; j < calls.length - 1; j++) {
      const next = source[i]!.parts?.[j + 1]
      if (next === undefined) continue
      const after = listAt(history, { message: source[i]!.id, part: next })
      if (after.warning !== undefined) return undefined
      const part = copy.parts?.[j]
      reached.push({
        message: copy.id,
        callID: calls[j]!,
        ...(part === undefined ? {} : { part }),
        list: after.list,
      })
    }
    const after = before(i + 1)
    if (after.warning !== undefined) return undefined
    const callID = calls.at(-1)
    const part = copy.parts?.[calls.length - 1]
    reached.push(
      callID === undefined
        ? { message: copy.id, list: after.list }
        : { message: copy.id, callID, ...(part === undefined ? {} : { part }), list: after.list },
    )
  }
  const calls = copiedCalls(fork, copied)
  return {
    list: at.list,
    knowsCopies:
      calls.length === 0 ||
      stateAtCall(history, calls) !== undefined ||
      recordedIn(
        history,
        source.slice(0, copied).map((m) => m.id),
      ),
    base: base.list,
    reached,
  }
}

/** Where a session with no record starts, and what its model's own history shows of the list. */
export interface Origin {
  readonly list: TodoList
  /** Its record's history: the lists its conversation reached, anchored at its own messages, ending in `list`. */
  readonly history: ListHistory
  /** The list the newest carrying part of its history shows; [] when none does, null when that part cannot be read. */
  readonly shown: TodoList | null
  readonly from: "source" | "transcript"
  /** What the log says about it, one line each. */
  readonly notes: readonly string[]
}

/**
 * The list a session with no record starts with: the source's at the fork point when the fork was matched and
 * its record saw the copied messages, else the one its own history carries; undefined to start empty, as any
 * new session does.
 */
export function originOf(
  history: TranscriptList,
  match: SourceMatch,
  source: SourceState | undefined,
): Origin | undefined {
  const notes: string[] = history.kind === "none" ? [] : [...history.skipped]
  const shown = history.kind === "found" ? history.shown : history.kind === "none" ? [] : null
  if (match.kind === "ambiguous")
    notes.push(`the fork matches ${match.ids.length} sessions, so it starts from its own conversation`)
  if (match.kind === "found") {
    if (source?.knowsCopies) {
      const started = historyReaching(source.base, source.reached, source.list)
      return { list: source.list, history: started, shown, from: "source", notes }
    }
    notes.push(
      source === undefined
        ? "the session it was forked from has no readable history here, so it starts from its own conversation"
        : "the history of the session it was forked from did not see the copied messages, so it starts from its own conversation",
    )
  }
  if (history.kind === "found") {
    const started = historyReaching([], history.reached, history.list)
    return { list: history.list, history: started, shown, from: "transcript", notes }
  }
  if (history.kind === "unreadable")
    return { list: [], history: historyFrom([]), shown: null, from: "transcript", notes }
  return undefined
}
