// Decoding what the host sends: each bus event the session step uses, what is ignored, what is malformed.
import { describe, expect, it } from "vitest"
import { COMMAND_PART_KEY } from "../../src/core/list/carried.ts"
import {
  commandMarkOf,
  decodeBusEvent,
  decodeMessages,
  decodeParts,
  decodeTools,
  decodeUser,
} from "../../src/server/host-events.ts"

const bus = (type: string, properties: unknown) => ({ type, properties })

function eventOf(raw: unknown) {
  const decoded = decodeBusEvent(raw)
  return decoded && "event" in decoded ? decoded.event : decoded
}

describe("decodeBusEvent", () => {
  it("decodes the events the session step uses", () => {
    expect(decodeBusEvent(bus("session.created", { info: { id: "s1", parentID: "p" } }))).toEqual({
      sessionID: "s1",
      event: { type: "session.created", parentID: "p" },
    })
    expect(decodeBusEvent(bus("session.created", { info: { id: "s1" } }))).toEqual({
      sessionID: "s1",
      event: { type: "session.created" },
    })
    expect(eventOf(bus("session.deleted", { info: { id: "s1" } }))).toEqual({
      type: "session.deleted",
    })
    expect(eventOf(bus("session.idle", { sessionID: "s1" }))).toEqual({ type: "session.idle" })
    expect(eventOf(bus("session.compacted", { sessionID: "s1" }))).toEqual({
      type: "session.compacted",
    })
    expect(
      eventOf(bus("session.error", { sessionID: "s1", error: { name: "MessageAbortedError" } })),
    ).toEqual({ type: "session.error", aborted: true })
    expect(eventOf(bus("session.error", { sessionID: "s1", error: { name: "APIError" } }))).toEqual({
      type: "session.error",
      aborted: false,
    })
    const assistant = { id: "a1", sessionID: "s1", role: "assistant", finish: "tool-calls" }
    expect(decodeBusEvent(bus("message.updated", { info: assistant }))).toEqual({
      sessionID: "s1",
      event: { type: "assistant.updated", messageID: "a1", endedOnToolCalls: true },
    })
    expect(
      eventOf(bus("message.updated", { info: { ...assistant, finish: "stop", error: { name: "X" } } })),
    ).toEqual({ type: "assistant.updated", messageID: "a1", endedOnToolCalls: false, error: "failed" })
    const part = { type: "text", sessionID: "s1", messageID: "a1", text: "Done." }
    expect(eventOf(bus("message.part.updated", { part }))).toEqual({
      type: "part.text",
      messageID: "a1",
      text: "Done.",
    })
    expect(eventOf(bus("permission.asked", { sessionID: "s1", id: "per_1" }))).toEqual({
      type: "ask.opened",
      id: "per_1",
    })
    expect(eventOf(bus("permission.replied", { sessionID: "s1", requestID: "per_1" }))).toEqual({
      type: "ask.closed",
      id: "per_1",
    })
    expect(eventOf(bus("question.rejected", { sessionID: "s1", id: "que_1" }))).toEqual({
      type: "ask.closed",
      id: "que_1",
    })
  })

  it("ignores events it does not use, user messages, non-text parts and events about no session", () => {
    expect(decodeBusEvent(bus("message.part.delta", { sessionID: "s1" }))).toBeUndefined()
    expect(
      decodeBusEvent(bus("message.updated", { info: { id: "u1", sessionID: "s1", role: "user" } })),
    ).toBeUndefined()
    expect(
      decodeBusEvent(bus("message.part.updated", { part: { type: "tool", sessionID: "s1" } })),
    ).toBeUndefined()
    expect(decodeBusEvent(bus("session.error", { error: { name: "APIError" } }))).toBeUndefined()
    expect(decodeBusEvent("session.idle")).toBeUndefined()
    expect(decodeBusEvent(null)).toBeUndefined()
  })

  it("reports a used event that lacks what it needs as malformed, without throwing", () => {
    expect(decodeBusEvent(bus("session.created", {}))).toEqual({
      malformed: "session.created without info.id",
    })
    expect(decodeBusEvent(bus("message.updated", undefined))).toEqual({
      malformed: "message.updated without info",
    })
    expect(decodeBusEvent(bus("message.part.updated", { part: 3 }))).toEqual({
      malformed: "message.part.updated without part",
    })
  })
})

describe("decodeParts / decodeUser", () => {
  it("keeps what the tracker classifies by, and nothing else", () => {
    expect(
      decodeParts([
        { type: "text", text: "hi", synthetic: true, id: "p1" },
        { type: "file", ignored: true },
        "junk",
      ]),
    ).toEqual([
      { type: "text", text: "hi", synthetic: true },
      { type: "file", ignored: true },
      { type: "unknown" },
    ])
  })

  it("takes the hook's agent, model and variant first, then the message's", () => {
    const model = { providerID: "p", modelID: "m" }
    expect(decodeUser({ agent: "plan" }, { agent: "build", model, variant: "high" })).toEqual({
      agent: "plan",
      model,
      variant: "high",
    })
    expect(decodeUser({}, { model: { providerID: 1 } })).toEqual({})
  })
})

describe("permission rules and the history", () => {
  const deny = { permission: "todo", pattern: "*", action: "deny" }

  it("reads the session's rules from session.created and session.updated", () => {
    expect(eventOf(bus("session.created", { info: { id: "s1", permission: [deny] } }))).toEqual({
      type: "session.created",
      rules: [deny],
    })
    expect(eventOf(bus("session.updated", { info: { id: "s1", permission: [deny, 7] } }))).toEqual({
      type: "session.updated",
      rules: [deny],
      revert: null,
    })
    expect(eventOf(bus("session.updated", { info: { id: "s1" } }))).toEqual({
      type: "session.updated",
      rules: [],
      revert: null,
    })
    expect(decodeBusEvent(bus("session.updated", {}))).toEqual({
      malformed: "session.updated without info.id",
    })
  })

  it("reads the revert in progress from session.updated: a message, or a part inside it", () => {
    const revert = (value: unknown) =>
      (eventOf(bus("session.updated", { info: { id: "s1", revert: value } })) as { revert: unknown }).revert
    expect(revert({ messageID: "msg_2", snapshot: "4b8", diff: "" })).toEqual({ message: "msg_2" })
    expect(revert({ messageID: "msg_2", partID: "prt_5" })).toEqual({ message: "msg_2", part: "prt_5" })
    expect(revert(undefined)).toBeNull()
    expect(revert({ partID: "prt_5" })).toBeNull()
    expect(revert("msg_2")).toBeNull()
  })

  it("reads removals of messages and parts (an undo being committed)", () => {
    expect(decodeBusEvent(bus("message.removed", { sessionID: "s1", messageID: "msg_3" }))).toEqual({
      sessionID: "s1",
      event: { type: "message.removed", messageID: "msg_3" },
    })
    expect(
      eventOf(bus("message.part.removed", { sessionID: "s1", messageID: "msg_3", partID: "prt_9" })),
    ).toEqual({ type: "message.removed", messageID: "msg_3", partID: "prt_9" })
    expect(decodeBusEvent(bus("message.removed", { sessionID: "s1" }))).toEqual({
      malformed: "message.removed without messageID",
    })
    expect(decodeBusEvent(bus("message.part.removed", { sessionID: "s1", messageID: "msg_3" }))).toEqual({
      malformed: "message.part.removed without partID",
    })
  })

  it("reads which part holds a todo call; other tools' parts are not ours", () => {
    const part = {
      id: "prt_7",
      sessionID: "s1",
      messageID: "msg_4",
      type: "tool",
      tool: "todo",
      callID: "c1",
    }
    expect(eventOf(bus("message.part.updated", { part }))).toEqual({
      type: "todo.part",
      callID: "c1",
      messageID: "msg_4",
      partID: "prt_7",
    })
    expect(eventOf(bus("message.part.updated", { part: { ...part, tool: "bash" } }))).toBeUndefined()
    expect(eventOf(bus("message.part.updated", { part: { ...part, callID: undefined } }))).toBeUndefined()
  })

  it("reads a prompt's tools map, keeping only on and off switches", () => {
    expect(decodeTools({ tools: { todo: false, bash: true, odd: "no" } })).toEqual({
      todo: false,
      bash: true,
    })
    expect(decodeTools({})).toBeUndefined()
  })

  it("decodes the history on demand, with the parts the stale rule reads", () => {
    const messages = [
      {
        info: { id: "m1", role: "user" },
        parts: [
          { id: "p1", type: "text", text: "typed" },
          { id: "p2", type: "text", text: "ours", synthetic: true },
          { id: "p3", type: "text", text: "reply", metadata: { [COMMAND_PART_KEY]: { list: [] } } },
        ],
      },
      {
        info: { id: "m2", role: "assistant" },
        parts: [
          {
            id: "p4",
            type: "tool",
            tool: "todo",
            state: { status: "completed", input: { op: "view" }, metadata: { ok: true } },
          },
        ],
      },
      { info: null, parts: "broken" },
    ]
    const history = decodeMessages(messages as never)
    expect([history.length, history.id(1), history.id(2)]).toEqual([3, "m2", ""])
    expect(history.at(0).parts).toEqual([
      { id: "p1", type: "text", text: "typed" },
      { id: "p2", type: "text", text: "ours", synthetic: true },
      { id: "p3", type: "text", text: "reply", command: true },
    ])
    expect(history.at(1)).toEqual({
      id: "m2",
      role: "assistant",
      parts: [
        {
          id: "p4",
          type: "tool",
          tool: "todo",
          status: "completed",
          input: { op: "view" },
          metadata: { ok: true },
        },
      ],
    })
    expect(history.at(2)).toEqual({ id: "", role: "unknown", parts: [] })
  })
})

describe("a /todo command's mark in its message", () => {
  const part = (command: unknown) => ({
    type: "text",
    text: "x",
    metadata: { [COMMAND_PART_KEY]: { list: [], command } },
  })
  it("is read from the command's text part, and only a short word is taken", () => {
    expect(commandMarkOf([{ type: "text", text: "hi" }, part("k3a9x1")])).toBe("k3a9x1")
    for (const bad of [undefined, 7, "", "a b", "x".repeat(16), "\u001b[31m"])
      expect(commandMarkOf([part(bad)])).toBeUndefined()
    expect(commandMarkOf([{ ...part("k1"), type: "tool" }])).toBeUndefined()
  })
})
