// What this server knows of the host's facts about one session, the input of the list in effect
// (core/history/effect.ts): the revert point last reported here, the messages it saw removed, the bounded
// lookups that fill a gap, and the once-per-session word that the host is slow. Never throws: a lookup that
// fails or is late is "not known" (LATE says which).

import { type HostFacts, type ShownMessages, shownHolds } from "../core/history/effect.ts"
import type { Point } from "../core/history/history.ts"
import { preview } from "../core/list/words.ts"
import { hostRevert } from "../shared/host-revert.ts"
import { answerWithin, LATE } from "../shared/wait.ts"
import type { HostPort } from "./host-port.ts"
import type { Log } from "./output.ts"

/** How many removed messages and parts a session remembers: a commit removes one turn or a few. */
export const REMOVED_KEPT = 256

export interface KnownFacts {
  /** The revert point as the host last reported it to this process; undefined when not known yet. */
  revert: Point | null | undefined
  /** Places this process saw the host remove (`message` or `message part`), oldest first, bounded. */
  readonly removed: string[]
}

export function newFacts(): KnownFacts {
  return { revert: undefined, removed: [] }
}

const key = (point: Point) => (point.part === undefined ? point.message : `${point.message} ${point.part}`)

/** The host removed this message (or this part of it). */
export function sawRemoved(facts: KnownFacts, point: Point): void {
  const k = key(point)
  if (facts.removed.includes(k)) return
  facts.removed.push(k)
  if (facts.removed.length > REMOVED_KEPT) facts.removed.splice(0, facts.removed.length - REMOVED_KEPT)
}

/** Whether this process saw the host remove this place (or its message). */
export function removedHere(facts: KnownFacts, point: Point): boolean {
  return (
    facts.removed.includes(point.message) || (point.part !== undefined && facts.removed.includes(key(point)))
  )
}

/**
 * The session's revert point now, from the host (null: not reverted); undefined when its answer does not say,
 * LATE when it did not answer within `ms`.
 */
export async function lookupRevert(
  host: HostPort,
  id: string,
  ms: number,
): Promise<Point | null | undefined | typeof LATE> {
  try {
    const data = await answerWithin(host.sessionInfo(id), ms)
    if (data === LATE) return LATE
    if (data === undefined || data.id !== id) return undefined
    return hostRevert(data) ?? null
  } catch {
    return undefined
  }
}

/** Whether the host still has this message (and part); undefined when it did not say for sure, LATE when slow. */
export async function lookupHolds(
  host: HostPort,
  id: string,
  point: Point,
  ms: number,
): Promise<boolean | undefined | typeof LATE> {
  try {
    return await answerWithin(host.holds(id, point), ms)
  } catch {
    return undefined
  }
}

/** The ids of every message the host has for the session; undefined when it did not say, LATE when slow. */
export async function lookupMessageIds(
  host: HostPort,
  id: string,
  ms: number,
): Promise<ShownMessages | undefined | typeof LATE> {
  try {
    return await answerWithin(host.messageIds(id), ms)
  } catch {
    return undefined
  }
}

/**
 * Says once per session and lookup (`what` the host was asked) that the host did not answer within `ms`, so
 * the session's list follows what this server heard from the host's events meanwhile. The session id is
 * data from outside: cut and quoted.
 */
export function slowHostWord(log: Log): (session: string, what: string, ms: number) => void {
  const said = new Set<string>()
  return (session, what, ms) => {
    const key = `${session}\n${what}`
    if (said.has(key)) return
    said.add(key)
    log(
      "warn",
      `The host did not say ${what} within ${ms / 1000} s, so the todo list of session ${JSON.stringify(preview(session, 40))} follows what this server heard from its events until it does.`,
    )
  }
}

/**
 * The host's facts as this process can answer them without waiting: what it saw removed is gone; what a
 * lookup answered is as answered; a place asked of no one is held unless `ask` says it must be asked
 * (undefined). After a prompt (`prompted`), the revert point the record holds is gone: the host commits a
 * pending undo before every prompt, before the prompt's hook or its removal events reach the plugin.
 */
export function factsFrom(
  facts: KnownFacts,
  revert: Point | null,
  answers: ReadonlyMap<string, boolean | undefined>,
  options: { readonly ask: boolean; readonly prompted?: Point; readonly messages?: ShownMessages },
): HostFacts {
  return {
    revert,
    holds: (point) => {
      if (removedHere(facts, point)) return false
      if (options.prompted !== undefined && key(options.prompted) === key(point)) return false
      const k = key(point)
      if (answers.has(k)) return answers.get(k)
      if (options.messages !== undefined && point.part === undefined)
        return shownHolds(options.messages, point.message)
      return options.ask ? undefined : true
    },
  }
}

export { key as placeKey }
