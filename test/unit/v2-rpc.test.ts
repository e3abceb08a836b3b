import { describe, expect, it } from "vitest"
import {
  decodeChanged,
  decodeNotice,
  decodeReply,
  decodeRunOutput,
  TODO_RPC,
  TODO_RPC_ID,
} from "../../src/shared/v2-rpc.ts"

describe("the OpenCode 2 RPC contract", () => {
  it("is plain JSON (the host gets it as it is) with the plugin's id, two methods and three events", () => {
    expect(JSON.parse(JSON.stringify(TODO_RPC))).toEqual(TODO_RPC)
    expect(TODO_RPC.id).toBe(TODO_RPC_ID)
    expect(Object.keys(TODO_RPC.methods).sort()).toEqual(["list", "run"])
    expect(Object.keys(TODO_RPC.events).sort()).toEqual(["changed", "notice", "reply"])
    // Event data must be an object for the host.
    for (const event of Object.values(TODO_RPC.events)) expect(event.schema.type).toBe("object")
  })

  it("decodes each event from the data alone or from the host's { type, location, data } wrapper", () => {
    const data = { sessionID: "s1", title: "Todo", message: "2 tasks open", variant: "info" }
    expect(decodeNotice(data)).toEqual(data)
    expect(decodeNotice({ type: "rpc.opencode-todo.notice", location: {}, data })).toEqual(data)
    expect(decodeNotice({ message: "m", variant: "loud" })).toBeUndefined()
    expect(decodeNotice({ message: "m", variant: "warning" })).toEqual({
      title: "Todo",
      message: "m",
      variant: "warning",
    })
    expect(decodeChanged({ data: { sessionID: "s2" } })).toEqual({ sessionID: "s2" })
    expect(decodeChanged({ data: { sessionID: "" } })).toBeUndefined()
    expect(decodeReply({ sessionID: "s", ok: true, text: "done" })).toEqual({
      sessionID: "s",
      ok: true,
      text: "done",
    })
    expect(decodeReply({ sessionID: "s", text: "done" })).toBeUndefined()
    expect(decodeRunOutput({ ok: false, text: "no" })).toEqual({ ok: false, text: "no" })
    expect(decodeRunOutput(null)).toBeUndefined()
  })
})
