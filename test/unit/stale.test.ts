// The stale rule: which of our stored parts a later todo update made stale, which todo results a later
// successful todo result superseded, the memo that reads only new messages, and that its answer is the
// rule's answer on every prefix of a growing history.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MARKER } from "../../src/core/model/prompts.ts"
import {
  type History,
  type HistoryMessage,
  type HistoryPart,
  initialStubs,
  isTodoUpdate,
  type PartRef,
  staleParts,
  stepStubs,
  todoOutcome,
} from "../../src/core/model/stale.ts"

let seq = 0
const id = (prefix: string) => `${prefix}_${String(++seq).padStart(6, "0")}`

const userText = (text: string): HistoryPart => ({ id: id("prt"), type: "text", text })
const ours = (text = "reminder"): HistoryPart => ({
  id: id("prt"),
  type: "text",
  text: `${MARKER}\n${text}`,
  synthetic: true,
})
const commandReply = (): HistoryPart => ({
  id: id("prt"),
  type: "text",
  text: `${MARKER}\n/todo`,
  command: true,
})
const todoCall = (input: unknown, metadata: unknown, status = "completed"): HistoryPart => ({
  id: id("prt"),
  type: "tool",
  tool: "todo",
  status,
  input,
  metadata,
})
const update = () => todoCall({ op: "done", task: "A" }, { ok: true, changed: true })
const view = () => todoCall({ op: "view" }, { ok: true, changed: false })
const failed = () => todoCall({ op: "done", task: "Nope" }, { ok: false, changed: false })
const user = (...parts: HistoryPart[]): HistoryMessage => ({ id: id("msg"), role: "user", parts })
const assistant = (...parts: HistoryPart[]): HistoryMessage => ({ id: id("msg"), role: "assistant", parts })

const conversation = (messages: readonly HistoryMessage[]): History & { reads: number } => {
  const h = {
    reads: 0,
    length: messages.length,
    id: (i: number) => messages[i]!.id,
    at(i: number) {
      h.reads++
      return messages[i]!
    },
  }
  return h
}
const staleIds = (messages: readonly HistoryMessage[]) =>
  staleParts(conversation(messages)).map((r) => r.partID)
const staleNotices = (messages: readonly HistoryMessage[]) =>
  staleParts(conversation(messages))
    .filter((r) => r.kind === "notice")
    .map((r) => r.partID)

describe("the rule", () => {
  it("stubs our parts followed by a todo update, never the user's text, never what is not yet answered", () => {
    const prelude = ours("prelude")
    const typed = userText("Fix the parser")
    const reminder = ours("reminder")
    const late = ours("second reminder")
    const messages = [
      user(typed, prelude),
      assistant(update()),
      user(reminder),
      assistant(todoCall({ op: "view" }, { ok: true, changed: false })),
      user(late),
    ]
    expect(staleNotices(messages)).toEqual([prelude.id])
    messages.push(assistant(update()))
    expect(staleNotices(messages)).toEqual([prelude.id, reminder.id, late.id])
  })

  it("the /todo command's reply is ours; a typed marker or a part of an assistant message is not", () => {
    const reply = commandReply()
    const pasted = userText(`${MARKER}\npasted by the user`)
    const inAssistant = ours()
    const messages = [user(reply), user(pasted), assistant(inAssistant), assistant(update())]
    expect(staleNotices(messages)).toEqual([reply.id])
  })

  it("a todo update is a completed, successful call that changed the list", () => {
    const a: HistoryMessage = assistant()
    expect(isTodoUpdate(a, update())).toBe(true)
    expect(isTodoUpdate(a, todoCall({ op: "done" }, { ok: true, changed: false }))).toBe(false)
    expect(isTodoUpdate(a, todoCall({ op: "done" }, { ok: false, changed: false }))).toBe(false)
    expect(isTodoUpdate(a, todoCall({ op: "done" }, { ok: true, changed: true }, "error"))).toBe(false)
    expect(isTodoUpdate(a, { ...update(), tool: "bash" })).toBe(false)
    expect(isTodoUpdate(user(), update()), "only the model's calls").toBe(false)
    // Results written before `changed` existed: a successful call that was not only view.
    expect(isTodoUpdate(a, todoCall({ op: "done" }, { ok: true }))).toBe(true)
    expect(isTodoUpdate(a, todoCall({ op: "view" }, { ok: true }))).toBe(false)
    expect(isTodoUpdate(a, todoCall({ ops: [{ op: "view" }] }, { ok: true }))).toBe(false)
    expect(isTodoUpdate(a, todoCall({ ops: [{ op: "view" }, { op: "done" }] }, { ok: true }))).toBe(true)
  })
})

describe("the memo", () => {
  it("reads only the messages added since the last request", () => {
    const messages = [user(userText("go"), ours()), assistant(update()), user(ours())]
    const first = stepStubs(initialStubs(), conversation(messages))
    const again = conversation(messages)
    expect(stepStubs(first, again)).toBe(first)
    expect(again.reads).toBe(0)
    messages.push(assistant(update()))
    const grown = conversation(messages)
    const next = stepStubs(first, grown)
    expect(grown.reads).toBe(1)
    // The first notice went stale with the first update; the second update stales the other and the first result.
    expect(next.stale.map((r) => r.kind)).toEqual(["notice", "result", "notice"])
  })

  it("reads again from the start when the history was cut (compaction) or its end replaced (undo)", () => {
    const reminder = ours()
    const messages = [user(userText("go")), user(reminder), assistant(update()), user(ours())]
    const state = stepStubs(initialStubs(), conversation(messages))
    expect(state.stale.map((r) => r.partID)).toEqual([reminder.id])
    // Undo: the update and what followed are gone; a new prompt takes their place.
    const undone = [messages[0]!, messages[1]!, user(userText("again"))]
    expect(stepStubs(state, conversation(undone)).stale).toEqual([])
    // Compaction: the history starts later; parts that are gone are forgotten.
    const compacted = messages.slice(3)
    const after = stepStubs(state, conversation(compacted))
    expect([after.stale, after.fresh.map((r) => r.index)]).toEqual([[], [0]])
    expect(stepStubs(state, conversation([]))).toEqual(initialStubs())
  })

  it("equals the rule on every prefix of a growing history, and never takes a stub back", () => {
    const message = fc.constantFrom("user", "ours", "both", "update", "view", "failed", "parallel", "text")
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 5 })),
        (kinds, steps) => {
          const messages: HistoryMessage[] = kinds.map((kind) => {
            if (kind === "user") return user(userText("typed"))
            if (kind === "ours") return user(ours())
            if (kind === "both") return user(userText("typed"), ours())
            if (kind === "update") return assistant(update())
            if (kind === "view") return assistant(view())
            if (kind === "failed") return assistant(failed())
            if (kind === "parallel") return assistant(failed(), update(), view())
            return assistant({ id: id("prt"), type: "text", text: "answer" })
          })
          let state = initialStubs()
          let shown: string[] = []
          let end = 0
          for (const step of [...steps, messages.length]) {
            end = Math.min(messages.length, end + step)
            const prefix = messages.slice(0, end)
            state = stepStubs(state, conversation(prefix))
            const now = state.stale.map((r) => r.partID)
            expect(now).toEqual(staleIds(prefix))
            expect(now.slice(0, shown.length)).toEqual(shown)
            shown = now
            for (const ref of state.stale) expect(prefix[ref.index]!.id).toBe(ref.messageID)
          }
        },
      ),
    )
  })
})

describe("superseded todo results", () => {
  const refs = (messages: readonly HistoryMessage[]) =>
    staleParts(conversation(messages)).map((r: PartRef) => [r.partID, r.kind])

  it("stubs every result before a later successful one, a failure as failed; the newest stays", () => {
    const plan = update()
    const done = update()
    const typo = failed()
    const look = view()
    const again = failed()
    const messages = [user(userText("go")), assistant(plan), assistant(done), assistant(typo)]
    expect(refs(messages), "a failure supersedes nothing").toEqual([[plan.id, "result"]])
    messages.push(assistant(look), assistant(again))
    expect(refs(messages), "a view supersedes like any success").toEqual([
      [plan.id, "result"],
      [done.id, "result"],
      [typo.id, "failed"],
    ])
  })

  it("in one message, parts count in order: a result is superseded by a later one beside it", () => {
    const first = update()
    const second = update()
    const last = failed()
    expect(refs([assistant(first, second, last)])).toEqual([[first.id, "result"]])
  })

  it("calls the host failed, results without an outcome and other tools are never stubbed", () => {
    const hostFailed = todoCall({ op: "done" }, undefined, "error")
    const noOutcome = todoCall({ op: "done" }, { list: [] })
    const bash = { ...update(), tool: "bash" }
    const messages = [assistant(hostFailed), assistant(noOutcome), assistant(bash), assistant(update())]
    expect(refs(messages)).toEqual([])
    expect(todoOutcome(assistant(), noOutcome)).toBeUndefined()
    expect(todoOutcome(user(), update()), "only the model's calls").toBeUndefined()
  })

  it("a result is stubbed exactly when a later todo result succeeded; the newest result never is", () => {
    const kind = fc.constantFrom("update", "view", "failed", "text", "ours")
    fc.assert(
      fc.property(fc.array(fc.array(kind, { minLength: 1, maxLength: 3 }), { maxLength: 30 }), (shape) => {
        const messages = shape.map((kinds) => {
          if (kinds.includes("ours")) return user(ours())
          return assistant(
            ...kinds.map((k) =>
              k === "update"
                ? update()
                : k === "view"
                  ? view()
                  : k === "failed"
                    ? failed()
                    : { id: id("prt"), type: "text", text: "answer" },
            ),
          )
        })
        // The oracle: every todo result in history order, with its outcome.
        const results = messages.flatMap((m) =>
          m.parts.flatMap((p) => {
            const outcome = todoOutcome(m, p)
            return outcome === undefined ? [] : [{ id: p.id, outcome }]
          }),
        )
        const expected = results
          .filter((_r, i) => results.slice(i + 1).some((later) => later.outcome === "ok"))
          .map((r) => [r.id, r.outcome === "ok" ? "result" : "failed"])
        const got = refs(messages).filter(([, k]) => k !== "notice")
        expect(got).toEqual(expected)
        const newest = results.at(-1)
        if (newest) expect(got.map(([partID]) => partID)).not.toContain(newest.id)
      }),
    )
  })
})
