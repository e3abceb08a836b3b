// OpenCode 2's session info and fork events as the binding decodes them (src/server/v2-events.ts): a fork's source
// is never taken for a parent, and each of the fork event's shapes names where the fork starts.
import { describe, expect, test } from "vitest"
import { decodeV2Event, v2SessionInfo } from "../../src/server/v2-events.ts"
import { syntheticMessageId, v2History, v2RequestRole } from "../../src/server/v2-request.ts"

describe("v2SessionInfo", () => {
  test("a fork's source, named by the fork event or by the info's own `fork`, is not a parent", () => {
    expect(v2SessionInfo({ id: "ses_b", parentID: "ses_a" }, "ses_a")).toEqual({ id: "ses_b" })
    const fork = { sessionID: "ses_a", boundary: { type: "before", messageID: "msg_1" } }
    expect(v2SessionInfo({ id: "ses_b", parentID: "ses_a", fork }, undefined)).toEqual({ id: "ses_b" })
    expect(v2SessionInfo({ id: "ses_b", fork }, undefined)).toEqual({ id: "ses_b" })
  })

  test("a subagent's parent stays its parent", () => {
    expect(v2SessionInfo({ data: { id: "ses_c", parentID: "ses_a" } }, undefined)).toEqual({
      id: "ses_c",
      parentID: "ses_a",
    })
  })
})

describe("the fork event", () => {
  const decode = (data: Record<string, unknown>) =>
    decodeV2Event(
      { type: "session.forked", data: { sessionID: "ses_f", parentID: "ses_a", ...data } },
      () => [],
    )

  test("`from` and a `before` boundary name the first message not copied", () => {
    expect(decode({ from: "msg_2" })).toEqual({
      kind: "forked",
      sessionID: "ses_f",
      parentID: "ses_a",
      from: "msg_2",
    })
    expect(decode({ boundary: { type: "before", messageID: "msg_2" } })).toEqual({
      kind: "forked",
      sessionID: "ses_f",
      parentID: "ses_a",
      from: "msg_2",
    })
  })

  test("a `through` boundary names the last message copied; no boundary is the whole session", () => {
    expect(decode({ boundary: { type: "through", messageID: "msg_2" } })).toEqual({
      kind: "forked",
      sessionID: "ses_f",
      parentID: "ses_a",
      through: "msg_2",
    })
    expect(decode({ parentSeq: 4 })).toEqual({ kind: "forked", sessionID: "ses_f", parentID: "ses_a" })
    expect(decode({ boundary: { type: "sideways", messageID: "msg_2" } })).toEqual({
      kind: "forked",
      sessionID: "ses_f",
      parentID: "ses_a",
    })
  })
})

describe("our synthetic messages", () => {
  test("the message id is the event's with msg for evt; an event with no such id gives none", () => {
    expect(syntheticMessageId({ id: "evt_01ABC", type: "session.synthetic" })).toBe("msg_01ABC")
    expect(syntheticMessageId({ type: "session.synthetic" })).toBeUndefined()
    expect(syntheticMessageId({ id: "x_1" })).toBeUndefined()
  })

  test("only the user messages named as ours read as synthetic", () => {
    const messages = [
      { id: "msg_1", role: "user", content: [{ type: "text", text: "typed" }] },
      { id: "msg_2", role: "user", content: [{ type: "text", text: "sent by us" }] },
      { id: "msg_3", role: "assistant", content: [{ type: "text", text: "answer" }] },
    ]
    const history = v2History(messages, new Set(["msg_2", "msg_3"]))
    expect(history.at(0).parts[0]!.synthetic).toBeUndefined()
    expect(history.at(1).parts[0]!.synthetic).toBe(true)
    expect(history.at(2).parts[0]!.synthetic).toBeUndefined()
    expect(v2History(messages).at(1).parts[0]!.synthetic).toBeUndefined()
  })
})

describe("v2RequestRole", () => {
  test("the host's kind decides where it names one; a kind not known here is an aside", () => {
    expect(v2RequestRole({ kind: "primary", agent: "compaction" })).toBe("primary")
    expect(v2RequestRole({ kind: "compaction", agent: "build" })).toBe("summarizer")
    expect(v2RequestRole({ kind: "title", agent: "build" })).toBe("aside")
    expect(v2RequestRole({ kind: "generate", agent: "build" })).toBe("aside")
    expect(v2RequestRole({ kind: "review", agent: "build" })).toBe("aside")
  })

  test("without a kind, the host's hidden agents tell", () => {
    expect(v2RequestRole({ agent: "build" })).toBe("primary")
    expect(v2RequestRole({})).toBe("primary")
    expect(v2RequestRole({ agent: "compaction" })).toBe("summarizer")
    expect(v2RequestRole({ agent: "title" })).toBe("aside")
    expect(v2RequestRole({ agent: "summary" })).toBe("aside")
  })
})

describe("an admitted message", () => {
  const seen = (type: string, data: Record<string, unknown>) =>
    decodeV2Event({ id: "evt_1", type, data: { sessionID: "ses_1", ...data } }, () => [])

  test("is seen under each name a host gives it: 2.0.15's inbox delivery, and the input and prompt admissions", () => {
    const want = {
      kind: "events",
      sessionID: "ses_1",
      events: [{ type: "message.seen", messageID: "msg_9" }],
    }
    // 2.0.15: the message takes its inbox item's id, and is written when the item is delivered.
    expect(seen("session.inbox.delivered", { inboxID: "msg_9" })).toEqual(want)
    expect(seen("session.input.admitted", { inputID: "msg_9" })).toEqual(want)
    expect(
      seen("session.prompt.admitted", { inputID: "msg_9", delivery: "steer", prompt: { text: "x" } }),
    ).toEqual(want)
  })
})
