// The lock file of one session record: its body, created whole, and read back with who holds it. The body is
// {pid, host, start, realm, time, token}, created by linking a finished temp file; identity.ts finds out who
// holds it, policy.ts judges, lock.ts waits for it, breaks it and releases it.

import { randomBytes } from "node:crypto"
import { isRecord } from "../core/list/result.ts"
import { errorCode, type Fs, LINK_UNSUPPORTED, noop, tempName, writeNew } from "./files.ts"
import { alive, HOST, REALM, START, startIdentity } from "./identity.ts"
import { type Holder, judgeHolder } from "./policy.ts"

interface LockInfo {
  readonly pid: number
  readonly host: string
  readonly start: string | undefined
  readonly realm: string | undefined
  readonly time: number
  readonly token: string
}

/** A lock file as read: its text, who holds it, how old it is. */
export interface Seen {
  readonly raw: string
  readonly holder: Holder
  readonly ageMs: number
  readonly pid?: number
}

/** Creates `path` holding `body`, whole, or throws (EEXIST: someone holds it). */
export async function createExclusive(fs: Fs, path: string, body: string): Promise<void> {
  const temp = tempName(path)
  try {
    // Inside the try: a write that fails after the create (a full disk) must not leave the temp behind.
    await writeNew(fs, temp, body, false)
    try {
      await fs.link(temp, path)
    } catch (error) {
      if (!LINK_UNSUPPORTED.has(errorCode(error))) throw error
      // No hard links on this file system: plain exclusive create (briefly empty, judged by age if found so).
      await createPlain(fs, path, body)
    }
  } finally {
    await fs.unlink(temp).catch(noop)
  }
}

async function createPlain(fs: Fs, path: string, body: string): Promise<void> {
  try {
    await writeNew(fs, path, body, false)
  } catch (error) {
    // Remove a lock we created but could not fill; an existing one (EEXIST) is someone else's.
    if (errorCode(error) !== "EEXIST") await fs.unlink(path).catch(noop)
    throw error
  }
}

/** Reads a lock (or break guard) file. "gone" means it vanished while we looked. */
export async function inspect(fs: Fs, path: string): Promise<"gone" | Seen> {
  let raw: string
  try {
    raw = await fs.readFile(path, "utf8")
  } catch (error) {
    return errorCode(error) === "ENOENT" ? "gone" : { raw: "", holder: "unconfirmed", ageMs: 0 }
  }
  const info = parseLock(raw)
  if (info) return { raw, holder: holderOf(info), ageMs: Date.now() - info.time, pid: info.pid }
  try {
    return { raw, holder: "unconfirmed", ageMs: Date.now() - (await fs.stat(path)).mtimeMs }
  } catch (error) {
    return errorCode(error) === "ENOENT" ? "gone" : { raw, holder: "unconfirmed", ageMs: 0 }
  }
}

/** Whether the lock file at `lockPath` carries `token`. */
export async function holds(fs: Fs, lockPath: string, token: string): Promise<boolean> {
  try {
    return parseLock(await fs.readFile(lockPath, "utf8"))?.token === token
  } catch {
    return false
  }
}

function holderOf(info: LockInfo): Holder {
  const onThisHost = info.host === HOST
  const ownRealm = onThisHost && info.pid === process.pid && info.realm === REALM.id
  return judgeHolder({
    onThisHost,
    pidAlive: onThisHost && alive(info.pid),
    startInLock: info.start,
    startNow: onThisHost ? startIdentity(info.pid) : undefined,
    ownRealm,
    heldHere: REALM.held.has(info.token),
  })
}

/** A new lock body for this process, with a fresh token. */
export function lockBody(): { body: string; token: string } {
  const token = randomBytes(8).toString("hex")
  const info = { pid: process.pid, host: HOST, start: START, realm: REALM.id, time: Date.now(), token }
  return { body: JSON.stringify(info), token }
}

function parseLock(raw: string): LockInfo | undefined {
  try {
    const v: unknown = JSON.parse(raw)
    if (
      isRecord(v) &&
      typeof v.pid === "number" &&
      Number.isSafeInteger(v.pid) &&
      v.pid > 0 &&
      typeof v.host === "string" &&
      typeof v.time === "number" &&
      typeof v.token === "string"
    )
      return {
        pid: v.pid,
        host: v.host,
        start: typeof v.start === "string" ? v.start : undefined,
        realm: typeof v.realm === "string" ? v.realm : undefined,
        time: v.time,
        token: v.token,
      }
  } catch {
    // Not a lock we wrote.
  }
  return undefined
}
