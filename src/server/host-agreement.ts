// What the host says now about a session's undo and redo, for `agree` in sessions.ts: its revert point, whether
// it still holds the recorded places that decide, and its message list when those do not; how long each lookup
// may take. It updates only what this process knows of the host (`Tracked.host`); the list and state stay
// sessions.ts's.

import {
  decidingPlace,
  type HostFacts,
  type InEffect,
  inEffect,
  placesToCheck,
} from "../core/history/effect.ts"
import { type Point, revertPoint } from "../core/history/history.ts"
import { samePoint } from "../core/history/rewind.ts"
import type { Limits } from "../core/list/types.ts"
import { LATE } from "../shared/wait.ts"
import { historyOf } from "../store/record.ts"
import type { Store } from "../store/store.ts"
import {
  factsFrom,
  lookupHolds,
  lookupMessageIds,
  lookupRevert,
  placeKey,
  removedHere,
} from "./host-facts.ts"
import type { HostPort } from "./host-port.ts"
import type { Tracked } from "./sessions.ts"

/** What the host is asked when it must say whether it still has the places that decide. */
const HOLDS = "which messages it still has"

// How long each lookup of the host's facts may take (its revert point, whether it still has a message): once
// per session when this server first loads it, and again only when the record and the events disagree.
const FACTS_WAIT_MS = 1_000

/**
 * `ask`: look the facts up (a session this server just loaded); `prompted`: a prompt just ran, so the host
 * committed any pending undo.
 */
export interface AgreeHow {
  readonly ask?: boolean
  readonly prompted?: boolean
}

/** The host's facts and what they put in effect over the record as read. */
export interface Agreement {
  readonly facts: HostFacts
  readonly effect: InEffect
  /** The revert point the host answered this time (null: none); absent when it was not asked or did not answer. */
  readonly looked?: Point | null
}

/**
 * The host's facts for a session, and the record's history brought into agreement with them (not written).
 * Undefined when the host does not say where it is reverted to: then nothing changes.
 */
export function hostAgreement(
  host: HostPort,
  store: Store,
  limits: Limits,
  slowHost: (session: string, what: string, ms: number) => void,
): (s: Tracked, how: AgreeHow) => Promise<Agreement | undefined> {
  /** The answer, or undefined when the host said nothing: a late one is said once per session and lookup. */
  function answered<T>(s: Tracked, what: string, answer: T | typeof LATE): T | undefined {
    if (answer !== LATE) return answer
    slowHost(s.id, what, FACTS_WAIT_MS)
    return undefined
  }

  return async (s, how) => {
    let revert = how.prompted ? null : s.host.revert
    let looked: Point | null | undefined
    if (revert === undefined || (how.ask && !how.prompted)) {
      looked = answered(s, "where it is reverted to", await lookupRevert(host, s.id, FACTS_WAIT_MS))
      if (looked !== undefined) revert = s.host.revert = looked
    }
    // A host that does not say where it is reverted to (or a fake one that knows no such session): no change.
    if (revert === undefined) return undefined
    if (how.prompted) s.host.revert = null
    const history = historyOf(await store.read(s.id))
    const stored = revertPoint(history)
    const prompted = how.prompted && stored !== undefined ? stored : undefined
    const answers = new Map<string, boolean | undefined>()
    if (how.ask)
      for (const place of placesToCheck(history)) {
        if (place === stored && (prompted !== undefined || samePoint(stored, revert))) continue
        const held = answered(s, HOLDS, await lookupHolds(host, s.id, place, FACTS_WAIT_MS))
        answers.set(placeKey(place), held)
      }
    // The host's revert point differs from the record's: whether it still holds the record's decides between a
    // commit and a redo, so it is asked, not assumed (this process may not have seen the removals). A host that
    // does not say leaves what this process saw to decide, as before the lookup.
    const deciding = prompted === undefined ? decidingPlace(history, revert) : undefined
    if (deciding !== undefined && !answers.has(placeKey(deciding)) && !removedHere(s.host, deciding)) {
      const held = answered(s, HOLDS, await lookupHolds(host, s.id, deciding, FACTS_WAIT_MS))
      if (held !== undefined) answers.set(placeKey(deciding), held)
    }
    let facts = factsFrom(s.host, revert, answers, {
      ask: how.ask === true,
      ...(prompted ? { prompted } : {}),
    })
    let effect = inEffect(history, facts, limits)
    if (effect.unsure && how.ask) {
      // The newest recorded change is gone: the host's message list says where the cut is.
      const messages = answered(s, HOLDS, await lookupMessageIds(host, s.id, FACTS_WAIT_MS))
      if (messages !== undefined) {
        facts = factsFrom(s.host, revert, answers, { ask: true, messages, ...(prompted ? { prompted } : {}) })
        effect = inEffect(history, facts, limits)
      }
    }
    return { facts, effect, ...(looked === undefined ? {} : { looked }) }
  }
}
