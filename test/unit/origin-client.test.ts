// The 1.18 TUI asks the host the server's origin questions through its own client (the v2 SDK, which takes the
// session id and the query flat): each question reaches the host in that shape, and the answer comes back as is.

import { describe, expect, it } from "vitest"
import { originClient } from "../../src/tui/v1/fork-start.ts"

describe("the TUI's client for the server's origin lookup", () => {
  it("passes the session id and the search flat, and hands back the host's answer", async () => {
    const asked: unknown[] = []
    const answer = (name: string) => (params: unknown) => {
      asked.push([name, params])
      return Promise.resolve({ data: name })
    }
    const api = {
      client: { session: { messages: answer("messages"), get: answer("get"), list: answer("list") } },
    }
    const client = originClient(api as never) as unknown as {
      session: Record<string, (o: unknown) => Promise<{ data: unknown }>>
    }
    expect(await client.session.messages!({ path: { id: "ses_a" } })).toEqual({ data: "messages" })
    expect(await client.session.get!({ path: { id: "ses_b" } })).toEqual({ data: "get" })
    expect(await client.session.list!({ query: { search: "T", roots: true, limit: 100 } })).toEqual({
      data: "list",
    })
    expect(asked).toEqual([
      ["messages", { sessionID: "ses_a" }],
      ["get", { sessionID: "ses_b" }],
      ["list", { search: "T", roots: true, limit: 100 }],
    ])
  })
})
