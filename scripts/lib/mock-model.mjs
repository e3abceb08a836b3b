// A scripted OpenAI-compatible chat-completions server for end-to-end runs against the real host.
// It records every request and answers through a caller-supplied `decide(request, info)` function,
// streaming the reply as server-sent events the way the host's openai-compatible provider expects.
import { appendFileSync } from "node:fs"
import { createServer } from "node:http"
import { sleep } from "./wait.mjs"

/**
 * Structural facts about one chat-completions request body, computed without reading any
 * plugin-authored text: roles, tool names, tool results and their order.
 */
export function describeRequest(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : []
  const tools = Array.isArray(body?.tools) ? body.tools : []
  const toolNames = tools.map((t) => t?.function?.name).filter(Boolean)
  const callsById = new Map()
  for (const m of messages) {
    if (m.role !== "assistant" || !Array.isArray(m.tool_calls)) continue
    for (const c of m.tool_calls) callsById.set(c.id, c.function?.name)
  }
  const toolResults = messages
    .filter((m) => m.role === "tool")
    .map((m) => ({ id: m.tool_call_id, name: callsById.get(m.tool_call_id), content: textOf(m.content) }))
  const last = messages[messages.length - 1]
  // Tool messages after the last user message belong to the turn being answered now.
  let lastUser = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user") {
      lastUser = i
      break
    }
  }
  const turnToolResults = messages
    .slice(lastUser + 1)
    .filter((m) => m.role === "tool")
    .map((m) => ({ id: m.tool_call_id, name: callsById.get(m.tool_call_id), content: textOf(m.content) }))
  return {
    hasTools: tools.length > 0,
    toolNames,
    system: messages.filter((m) => m.role === "system").map((m) => textOf(m.content)),
    roles: messages.map((m) => m.role),
    userCount: messages.filter((m) => m.role === "user").length,
    lastRole: last?.role,
    lastText: last ? textOf(last.content) : "",
    toolResults,
    turnToolResults,
    stream: body?.stream !== false,
  }
}

/** Text content of a message whose content is a string or an array of parts. */
export function textOf(content) {
  if (typeof content === "string") return content
  if (Array.isArray(content))
    return content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("")
  return ""
}

/** The texts of the tool results in a request the server recorded, in order. */
export const toolResults = (req) =>
  req.body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content))
/** The texts of the user-role messages in a recorded request: prompts, reminders, attached notices. */
export const userTexts = (req) =>
  req.body.messages.filter((m) => m.role === "user").map((m) => textOf(m.content))

/**
 * What kind of call this is, from structure only. Main turns always offer tools. Of the tool-less
 * calls, the compaction summarizer sends the whole history as one transcript inside a single user
 * message wrapped in <conversation> tags; the title generator sends the user's own messages.
 */
export function classifyRequest(body) {
  if (Array.isArray(body?.tools) && body.tools.length > 0) return "main"
  const users = (body?.messages ?? []).filter((m) => m.role === "user")
  if (users.length === 1 && /<conversation>[\s\S]*<\/conversation>/.test(textOf(users[0].content)))
    return "compaction"
  return "title"
}

/** True for the tool-less title-generator call. */
export function isTitleRequest(body) {
  return classifyRequest(body) === "title"
}

/**
 * Start the server on 127.0.0.1 with an OS-assigned port.
 * decide(body, info) returns one of:
 *   { text }                              plain answer
 *   { toolCalls: [{ name, args, id? }] }  tool calls (text first when both are given)
 *   { error: { status, message } }        an HTTP error the provider reports
 *   { hang: true }                        never finishes until the client disconnects (abort tests)
 * plus optional { delayMs, usage: { prompt_tokens, completion_tokens } }.
 * Returning undefined falls back to { text: "ok" } (main) or a fixed summary (compaction).
 * Title requests are answered with `title` unless `decideTitles` is true, in which case decide()
 * sees them too. info.kind is "main", "compaction" or "title".
 */
export async function startMockModel({
  decide,
  logFile,
  title = "Scripted session",
  summary = "## Objective\n- Scripted summary of the conversation.",
  decideTitles = false,
} = {}) {
  const requests = []
  let current = decide ?? (() => undefined)
  const sockets = new Set()
  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: String(err?.stack ?? err) } }))
    })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })

  async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (req.method === "GET" && url.pathname.endsWith("/models")) {
      return json(res, 200, { object: "list", data: [{ id: "m", object: "model", owned_by: "mock" }] })
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
      return json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } })
    }
    const raw = await readBody(req)
    let body
    try {
      body = JSON.parse(raw)
    } catch {
      return json(res, 400, { error: { message: "body is not JSON" } })
    }
    const info = describeRequest(body)
    const kind = classifyRequest(body)
    const entry = { seq: requests.length, at: Date.now(), path: url.pathname, kind, body }
    requests.push(entry)
    if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`)

    let reply
    if (kind === "title" && !decideTitles) reply = { text: title }
    else
      reply = (await current(body, { ...info, kind, seq: entry.seq, requests })) ?? {
        text: kind === "compaction" ? summary : "ok",
      }
    entry.reply = reply
    if (reply.delayMs) await sleep(reply.delayMs)
    if (reply.error) {
      // The host retries (5 times, 2 s doubling) when the status is >= 500 or the body says
      // "server_error" and similar; a 4xx with invalid_request_error fails the turn at once.
      const status = reply.error.status ?? 500
      return json(res, status, {
        error: {
          message: reply.error.message ?? "mock failure",
          type: reply.error.type ?? (status >= 500 ? "server_error" : "invalid_request_error"),
          code: null,
        },
      })
    }
    if (reply.hang) {
      res.writeHead(200, sseHeaders())
      res.write(chunk(body, { role: "assistant", content: "" }, null))
      await new Promise((resolve) => req.on("close", resolve))
      return
    }
    if (info.stream) return stream(res, body, reply)
    return json(res, 200, completion(body, reply))
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", resolve)
  })
  const port = server.address().port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    /** Replace the decision function between scenario steps. */
    setDecide(fn) {
      current = fn
    },
    /** Requests of one kind ("main", "compaction", "title"), in order. */
    ofKind(kind) {
      return requests.filter((r) => r.kind === kind)
    },
    /** Requests that offered tools (the agent's own turns), in order. */
    mainRequests() {
      return requests.filter((r) => r.kind === "main")
    },
    close() {
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

function sseHeaders() {
  return { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" }
}

let idCounter = 0
function nextId(prefix) {
  idCounter += 1
  return `${prefix}_${idCounter.toString(36)}`
}

function chunk(body, delta, finish, usage) {
  const out = {
    id: "chatcmpl-mock",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  }
  if (usage) out.usage = usage
  return `data: ${JSON.stringify(out)}\n\n`
}

function usageFor(body, reply) {
  if (reply.usage) return { total_tokens: 0, ...reply.usage }
  const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4)
  const completionTokens = Math.ceil(
    ((reply.text ?? "").length + JSON.stringify(reply.toolCalls ?? []).length) / 4,
  )
  return {
    prompt_tokens: prompt,
    completion_tokens: completionTokens,
    total_tokens: prompt + completionTokens,
  }
}

function stream(res, body, reply) {
  res.writeHead(200, sseHeaders())
  res.write(chunk(body, { role: "assistant", content: "" }, null))
  if (reply.text) {
    // Two pieces so the host sees real deltas.
    const cut = Math.ceil(reply.text.length / 2)
    res.write(chunk(body, { content: reply.text.slice(0, cut) }, null))
    if (cut < reply.text.length) res.write(chunk(body, { content: reply.text.slice(cut) }, null))
  }
  const calls = reply.toolCalls ?? []
  calls.forEach((call, index) => {
    const id = call.id ?? nextId("call")
    const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {})
    res.write(
      chunk(
        body,
        { tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] },
        null,
      ),
    )
    res.write(chunk(body, { tool_calls: [{ index, function: { arguments: args } }] }, null))
  })
  const finish = reply.finish ?? (calls.length ? "tool_calls" : "stop")
  res.write(chunk(body, {}, finish))
  // Usage arrives in a final choice-less chunk, as with stream_options.include_usage.
  const usageChunk = JSON.parse(chunk(body, {}, null).slice(6))
  usageChunk.choices = []
  usageChunk.usage = usageFor(body, reply)
  res.write(`data: ${JSON.stringify(usageChunk)}\n\n`)
  res.write("data: [DONE]\n\n")
  res.end()
}

function completion(body, reply) {
  const calls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextId("call"),
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
    },
  }))
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "m",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: reply.finish ?? (calls.length ? "tool_calls" : "stop"),
      },
    ],
    usage: usageFor(body, reply),
  }
}

function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(value))
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = []
    req.on("data", (d) => parts.push(d))
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    req.on("error", reject)
  })
}
