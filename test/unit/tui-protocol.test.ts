// The TUI protocol: the host's revert point and the parts before it (the list in effect under it: effect.test.ts).
import { describe, expect, it } from "vitest"
import { hostRevert, partsBefore } from "../../src/shared/host-revert.ts"

describe("what the host's sessions and parts say of a revert", () => {
  it("reads the revert point from a session's info, and nothing from a session not reverted", () => {
    expect(hostRevert({ id: "ses_1", revert: { messageID: "msg_2", snapshot: "x", diff: "" } })).toEqual({
      message: "msg_2",
    })
    expect(hostRevert({ revert: { messageID: "msg_2", partID: "prt_5" } })).toEqual({
      message: "msg_2",
      part: "prt_5",
    })
    expect(hostRevert({ revert: { messageID: "msg_2", partID: "" } })).toEqual({ message: "msg_2" })
    for (const info of [
      { id: "ses_1" },
      { revert: null },
      { revert: { messageID: 3 } },
      { revert: {} },
      null,
      "x",
    ])
      expect(hostRevert(info)).toBeUndefined()
  })

  it("keeps the parts strictly before a revert point, at a message or at a part", () => {
    const part = (id: string) => ({ id, type: "text", text: id })
    const messages = [
      { id: "msg_1", parts: [part("prt_1")] },
      { id: "msg_2", parts: [part("prt_2"), part("prt_3"), part("prt_4")] },
      { id: "msg_3", parts: [part("prt_5")] },
    ]
    const ids = (parts: unknown[]) => parts.map((p) => (p as { id: string }).id)
    expect(ids(partsBefore(messages))).toEqual(["prt_1", "prt_2", "prt_3", "prt_4", "prt_5"])
    expect(ids(partsBefore(messages, { message: "msg_2" }))).toEqual(["prt_1"])
    expect(ids(partsBefore(messages, { message: "msg_2", part: "prt_4" }))).toEqual([
      "prt_1",
      "prt_2",
      "prt_3",
    ])
    expect(ids(partsBefore(messages, { message: "msg_1" }))).toEqual([])
    // A point between stored messages (its message already gone) still cuts by id order.
    expect(ids(partsBefore(messages, { message: "msg_25" }))).toEqual(["prt_1", "prt_2", "prt_3", "prt_4"])
  })
})
