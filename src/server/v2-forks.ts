// What the OpenCode 2 binding asks its host about a session it has not followed from the start: whether a
// session first seen is new (and its agent), and where a fork starts (its source's list at the fork point,
// anchored at the fork's own copies of the source's turns where the two conversations line up).

import type { Config } from "../core/config.ts"
import { limitsOf } from "../core/config.ts"
import { matchSource, type Origin, originOf, sourceStateAt } from "../core/history/fork.ts"
import { historyFrom, type ListHistory } from "../core/history/history.ts"
import { listForCopy } from "../core/history/revert.ts"
import { withinMs } from "../shared/wait.ts"
import { historyOf } from "../store/record.ts"
import type { Store } from "../store/store.ts"
import type { HostPort } from "./host-port.ts"
import type { Log } from "./output.ts"
import type { Runtime } from "./runtime.ts"
import type { Fork } from "./turns.ts"
import { fn, messagesOf, type V2Context } from "./v2-context.ts"
import { v2ForkOf } from "./v2-events.ts"
import { WITHOUT_SESSION_CONTEXT } from "./v2-host-port.ts"
import { v2Transcript } from "./v2-request.ts"

/** How long the first sight of a session may wait for the host to say whether it is new. */
const FIRST_SIGHT_MS = 2_000

export interface V2Lookups {
  /** A session this process has not seen: whether it is new, and its agent (the host's info). */
  firstSight(sessionID: string): Promise<void>
  /**
   * The first message of the source after `through` (a fork "through" a message holds it and the ones before),
   * from the host's messages; none when it is the last one (the fork holds all). When the host does not say, the
   * fork starts from the source's whole list, and the log says so.
   */
  afterMessage(sessionID: string, through: string): Promise<string | undefined>
  /**
   * Where a fork starts: its source's list at the fork point (edits made while the source was undone included).
   * The fork is known from its event, or, before that event reaches this server (or when it started after it),
   * from the fork's info. Its history is anchored at its own copies of the source's turns, so an undo inside them
   * takes back what they did (core/history/fork.ts, as on 1.18); when the two conversations cannot be lined up
   * (the source compacted past the fork point, a copy that differs) it starts from the list alone.
   */
  forkOrigin(store: Store, config: Config, id: string): Promise<Origin | undefined>
}

export function v2Lookups(deps: {
  readonly session: NonNullable<V2Context["session"]>
  readonly host: HostPort
  readonly log: Log
  readonly lacks: (what: string, effect: string) => void
  /** The runtime, once started (no lookup is made before). */
  readonly runtime: () => Runtime
}): V2Lookups {
  const { session, host, log } = deps
  /** Asks `session.context` for a session's answer, bounded by FIRST_SIGHT_MS. */
  const contextOf = (context: NonNullable<typeof session.context>, sessionID: string) =>
    withinMs(Promise.resolve(context({ sessionID } as never)), FIRST_SIGHT_MS)

  async function afterMessage(sessionID: string, through: string): Promise<string | undefined> {
    const ids = [...((await host.messageIds(sessionID).catch(() => undefined))?.ids ?? [])]
    const at = ids.indexOf(through)
    if (at < 0)
      log(
        "warn",
        "a fork's boundary message is not among its source's messages: the fork starts from the whole list",
      )
    return at < 0 ? undefined : ids[at + 1]
  }

  /** The fork the session's info names, remembered as its event would be; undefined for no fork. */
  async function forkFromInfo(id: string): Promise<Fork | undefined> {
    const get = session.get
    if (!fn(get)) return undefined
    const raw = await withinMs(
      Promise.resolve(get({ sessionID: id } as never)).catch(() => undefined),
      FIRST_SIGHT_MS,
    )
    const named = v2ForkOf(raw)
    if (named === undefined) return undefined
    const from = named.through ? await afterMessage(named.parentID, named.through) : named.from
    const fork = { parentID: named.parentID, ...(from ? { from } : {}) }
    deps.runtime().turns.rememberFork(id, fork)
    return fork
  }

  async function anchoredAtCopies(
    history: ListHistory,
    parentID: string,
    id: string,
    from: string | undefined,
  ): Promise<Origin | undefined> {
    const context = session.context
    if (!fn(context)) return undefined
    const [sourceAnswer, forkAnswer] = await Promise.all([
      contextOf(context, parentID),
      contextOf(context, id),
    ])
    const sourceMessages = messagesOf(sourceAnswer)
    const forkMessages = messagesOf(forkAnswer)
    if (sourceMessages === undefined || forkMessages === undefined) return undefined
    const sourceT = v2Transcript(sourceMessages)
    const forkT = v2Transcript(forkMessages)
    const copied = from === undefined ? sourceT.length : sourceT.findIndex((m) => m.id === from)
    // The fork point is not among the messages the source shows (compacted away since): nothing to line up.
    if (copied < 0) return undefined
    const match = matchSource(forkT, copied, [{ id: parentID, messages: sourceT }])
    if (match.kind !== "found") return undefined
    const origin = originOf({ kind: "none" }, match, sourceStateAt(history, sourceT, forkT, copied))
    return origin?.from === "source" ? origin : undefined
  }

  return {
    afterMessage,

    async firstSight(sessionID) {
      const runtime = deps.runtime()
      if (runtime.sessions.find(sessionID)) return
      const [info, context] = await Promise.all([
        withinMs(
          host.sessionInfo(sessionID).catch(() => undefined),
          FIRST_SIGHT_MS,
        ),
        fn(session.context)
          ? withinMs(
              Promise.resolve(session.context({ sessionID } as never)).catch(() => undefined),
              FIRST_SIGHT_MS,
            )
          : deps.lacks(...WITHOUT_SESSION_CONTEXT),
      ])
      if (typeof info?.agent === "string")
        runtime.turns.note({ type: "agent", sessionID, agent: info.agent, selected: false })
      const messages = messagesOf(context)
      // Nothing before this prompt: the session was created now (the host sends no creation event to plugins).
      if (messages !== undefined && messages.length <= 1 && info !== undefined) {
        const parentID = typeof info.parentID === "string" ? info.parentID : undefined
        await runtime.event(sessionID, { type: "session.created", ...(parentID ? { parentID } : {}) })
      }
    },

    async forkOrigin(store, config, id) {
      const fork = deps.runtime().turns.fork(id) ?? (await forkFromInfo(id))
      if (fork === undefined) return undefined
      const source = await store.read(fork.parentID)
      if (source.revision === 0) return undefined
      const history = historyOf(source)
      const anchored = await anchoredAtCopies(history, fork.parentID, id, fork.from).catch(() => undefined)
      if (anchored !== undefined) return anchored
      const at = listForCopy(history, fork.from ? { message: fork.from } : undefined, limitsOf(config))
      const notes = at.warning ? [at.warning] : []
      return { list: at.list, history: historyFrom(at.list), shown: at.list, from: "source", notes }
    },
  }
}
