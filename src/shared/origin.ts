// Where a session with no record starts: asks the host for its messages (and a fork's source candidates),
// reads the source's record and lets the core decide (core/history/rebuild.ts, core/history/fork.ts), within
// one time budget, never throwing. The server runs it on a session's first load, the 1.18 TUI for a fork
// edited before any server met it (tui/v1/fork-start.ts). More: docs/design.md, "shared/origin.ts".

import {
  type Candidate,
  copiedCount,
  matchSource,
  type Origin,
  originOf,
  pickCandidates,
  type SourceMatch,
  type SourceState,
  sourceStateAt,
  sourceTitle,
} from "../core/history/fork.ts"
import { type Transcript, type TranscriptList, transcriptList } from "../core/history/rebuild.ts"
import { taskCount } from "../core/list/queries.ts"
import type { Limits } from "../core/list/types.ts"
import { neutralize, preview } from "../core/list/words.ts"
import { historyOf, type Snapshot } from "../store/record.ts"
import type { Store } from "../store/store.ts"
import { decodeListedSession, decodeTranscript } from "./transcript.ts"
import { withinMs } from "./wait.ts"

/** How long the whole lookup may take, every host request included. */
export const ORIGIN_BUDGET_MS = 3000
/** At most this many sessions with the source's title are read: a fork needs one, and each costs a request. */
export const SOURCE_CANDIDATES_MAX = 5
/** How far back a chain of forks with no record of their own is walked (each step costs a few requests). */
export const SOURCE_CHAIN_MAX = 4

/**
 * The three session questions the lookup asks, in the 1.18 SDK's shape: the server's own client answers them
 * as is, the 1.18 TUI's through tui/v1/fork-start.ts. `list` takes `never`: the SDK's types lack the search,
 * roots and limit its server reads.
 */
export interface OriginClient {
  readonly session: {
    messages(options: { path: { id: string } }): unknown
    get(options: { path: { id: string } }): unknown
    list(options: never): unknown
  }
}

/** Where the lookup says how a session started (the server's log; the TUI passes one that drops it). */
export type OriginLog = (level: "warn" | "info", message: string) => void

export type FindOrigin = (sessionID: string) => Promise<Origin | undefined>

/** What the source's record says at the fork point (see core/history/fork.ts sourceStateAt); undefined when it cannot say. */
export type SourceAt = (
  snapshot: Snapshot,
  source: Transcript,
  fork: Transcript,
  copied: number,
) => SourceState | undefined

const LATE = Symbol("late")

/** Where a session starts, with what decided it (for the log). */
interface Started {
  readonly origin: Origin
  readonly history: TranscriptList
  readonly match: SourceMatch
}

export function originFinder(deps: {
  client: OriginClient
  store: Store
  limits: Limits
  log: OriginLog
  sourceAt: SourceAt
  budgetMs?: number
}): FindOrigin {
  const { client, store, limits, log, sourceAt } = deps
  const budget = deps.budgetMs ?? ORIGIN_BUDGET_MS

  return async (id) => {
    const deadline = Date.now() + budget
    /** What `work` gives, or LATE past the deadline; a failure reads as undefined. */
    async function within<T>(work: () => Promise<T>): Promise<T | undefined | typeof LATE> {
      const done = Promise.resolve()
        .then(work)
        .then((value) => ({ value }))
        .catch(() => ({ value: undefined }))
      const answer = await withinMs(done, Math.max(0, deadline - Date.now()))
      return answer === undefined ? LATE : answer.value
    }
    /** The data of the host's answer, within the budget. */
    const ask = <T>(request: () => Promise<{ data?: T } | undefined>) =>
      within(async () => (await request())?.data)
    const label = JSON.stringify(preview(id, 40))
    const found = await startOf(id, 0)
    if (found === LATE) {
      log(
        "warn",
        `The host did not answer within ${budget / 1000} s, so the todo list of session ${label} starts empty.`,
      )
      return undefined
    }
    if (found === undefined) return undefined
    const { origin, history, match } = found
    const tasks = taskCount(origin.list)
    const from =
      origin.from === "source" && match.kind === "found"
        ? `from session ${JSON.stringify(preview(match.sourceID, 40))}, the session it was forked from, as it was at the fork point`
        : history.kind === "found"
          ? "from the last todo list its conversation shows"
          : "empty, as no todo list its conversation shows can be read"
    // The notes quote texts from the transcript: data from outside, escaped for the log.
    const notes = origin.notes.length > 0 ? ` (${neutralize(origin.notes.join("; "))})` : ""
    log(
      origin.notes.length > 0 ? "warn" : "info",
      `The todo list of session ${label} was started ${from}${tasks === 0 ? "" : `: ${tasks} ${tasks === 1 ? "task" : "tasks"}`}${notes}.`,
    )
    return origin

    /** Where session `sid` starts; `depth` sources of record-less forks were walked to reach it. */
    async function startOf(sid: string, depth: number): Promise<Started | undefined | typeof LATE> {
      const raw = await ask(() => client.session.messages({ path: { id: sid } }) as never)
      if (raw === LATE) return LATE
      const transcript = decodeTranscript(raw)
      if (transcript.length === 0) return undefined
      const history = transcriptList(transcript, limits)

      let match: SourceMatch = { kind: "none" }
      let source: SourceState | undefined
      const infoRaw = await ask(() => client.session.get({ path: { id: sid } }) as never)
      if (infoRaw === LATE) return LATE
      const info = decodeListedSession(infoRaw)
      const title = info ? sourceTitle(info.title) : undefined
      const copied = info?.created === undefined ? 0 : copiedCount(transcript, info.created)
      if (title !== undefined && copied > 0) {
        // The host's session search narrows by title; the core picks from what it lists.
        const listed = await ask(
          () => client.session.list({ query: { search: title, roots: true, limit: 100 } } as never) as never,
        )
        if (listed === LATE) return LATE
        const sessions = (Array.isArray(listed) ? listed : []).flatMap(
          (raw) => decodeListedSession(raw) ?? [],
        )
        const firstCopied = transcript[0]!.created!
        const fork = { id: sid, title, created: info!.created!, firstCopied }
        const ids = pickCandidates(sessions, fork, SOURCE_CANDIDATES_MAX)
        const candidates: Candidate[] = []
        for (const candidate of ids) {
          const messages = await ask(() => client.session.messages({ path: { id: candidate } }) as never)
          if (messages === LATE) return LATE
          candidates.push({ id: candidate, messages: decodeTranscript(messages) as Transcript })
        }
        match = matchSource(transcript, copied, candidates)
        const sourceID = match.kind === "found" ? match.sourceID : undefined
        const matched = candidates.find((c) => c.id === sourceID)
        let record = matched ? await within(() => store.read(matched.id)) : undefined
        if (record === LATE) return LATE
        // A source with no record of its own (a fork never prompted) starts where its own source says.
        if (matched && record?.revision === 0 && depth < SOURCE_CHAIN_MAX) {
          const upstream = await startOf(matched.id, depth + 1)
          if (upstream === LATE) return LATE
          if (upstream?.origin.from === "source")
            record = { ...record, list: upstream.origin.list, history: upstream.origin.history }
        }
        if (matched && record) source = sourceAt(record, matched.messages, transcript, copied)
      }
      const origin = originOf(history, match, source)
      return origin === undefined ? undefined : { origin, history, match }
    }
  }
}

/** The source's list at the fork point, from the anchored history its record keeps. */
export const sourceAtFork: SourceAt = (snapshot, source, fork, copied) =>
  sourceStateAt(historyOf(snapshot), source, fork, copied)
