// The session step: host facts (observe), which tracker event each host event is, and what the server is told
// to do. Rules first, one test each; then properties over random event sequences.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_CONFIG } from "../../src/core/config.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { MARKER } from "../../src/core/model/prompts.ts"
import {
  type HostEvent,
  initialSession,
  OPEN_ASKS_MAX,
  observe,
  type Session,
  type SessionAction,
  stepSession,
  stepsOnArrival,
  todoAccess,
  todoRefusal,
} from "../../src/core/session/session.ts"

const CONFIG = { ...DEFAULT_CONFIG, eager: "preferred" as const }
const OPEN: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "in_progress" },
      { text: "Test parser", status: "pending" },
    ],
  },
]
const USER = { agent: "plan", model: { providerID: "p", modelID: "m" }, variant: "high" }

const prompt = (text = "Fix the parser"): HostEvent => ({
  type: "user.message",
  parts: [{ type: "text", text }],
  user: USER,
})
const ours = (text = `${MARKER}\nx`): HostEvent => ({
  type: "user.message",
  parts: [{ type: "text", text, synthetic: true }],
  user: { agent: "other" },
})

/** A session driven event by event, as the server hooks drive it. */
class Driver {
  session: Session = initialSession()
  constructor(public list: TodoList = OPEN) {}
  send(event: HostEvent): readonly SessionAction[] {
    const step = stepSession(this.session, event, this.list, CONFIG)
    this.session = step.session
    return step.actions
  }
  kinds(event: HostEvent): string[] {
    return this.send(event).map((a) => ("kind" in a ? `${a.type}:${a.kind}` : a.type))
  }
  /** Created here, not a subagent, past its first real prompt. */
  static started(list: TodoList = OPEN): Driver {
    const d = new Driver(list)
    d.send({ type: "session.created" })
    d.send(prompt())
    return d
  }
}

describe("facts", () => {
  it("a session created here knows whether it is a subagent; a lookup only fills what no event said", () => {
    const created = observe(initialSession().facts, { type: "session.created", parentID: "ses_parent" })
    expect([created.createdHere, created.subagent]).toEqual([true, true])
    expect(observe(created, { type: "parent.found" }).subagent).toBe(true)
    expect(observe(initialSession().facts, { type: "parent.found" }).subagent).toBe(false)
    expect(todoRefusal(created)).toMatch(/^Error: the todo list belongs to the main session/)
    expect(todoRefusal(observe(initialSession().facts, { type: "parent.found" }))).toBeUndefined()
  })

  it("a real prompt records who it went to and clears aborted, failed and interrupted; our own messages only set the turn's agent", () => {
    let facts = observe(initialSession().facts, { type: "session.error", aborted: true })
    facts = observe(facts, { type: "session.error", aborted: false })
    facts = observe(facts, { type: "assistant.updated", messageID: "a1", endedOnToolCalls: true })
    expect([facts.aborted, facts.errored, facts.interrupted]).toEqual([true, true, true])
    const afterOurs = observe(facts, ours())
    expect([afterOurs.aborted, afterOurs.errored, afterOurs.interrupted, afterOurs.lastUser]).toEqual([
      true,
      true,
      true,
      null,
    ])
    expect(afterOurs.turnAgent, "our message starts a turn as its agent").toBe("other")
    const after = observe(facts, prompt())
    expect([after.aborted, after.errored, after.interrupted, after.lastUser]).toEqual([
      false,
      false,
      false,
      USER,
    ])
  })

  it("keeps the text of the last assistant message only", () => {
    let facts = observe(initialSession().facts, {
      type: "assistant.updated",
      messageID: "a1",
      endedOnToolCalls: false,
    })
    facts = observe(facts, { type: "part.text", messageID: "a1", text: "Should I go on?" })
    facts = observe(facts, { type: "part.text", messageID: "u1", text: "not the assistant's" })
    facts = observe(facts, { type: "part.text", messageID: "a1", text: "" })
    expect(facts.lastAssistant).toEqual({ id: "a1", text: "Should I go on?" })
    facts = observe(facts, { type: "assistant.updated", messageID: "a1", endedOnToolCalls: false })
    expect(facts.lastAssistant?.text).toBe("Should I go on?")
    facts = observe(facts, { type: "assistant.updated", messageID: "a2", endedOnToolCalls: false })
    expect(facts.lastAssistant).toEqual({ id: "a2", text: null })
  })

  it("tracks open requests by id, each once, at most OPEN_ASKS_MAX", () => {
    let facts = initialSession().facts
    for (let i = 0; i < OPEN_ASKS_MAX + 10; i++) facts = observe(facts, { type: "ask.opened", id: `q${i}` })
    facts = observe(facts, { type: "ask.opened", id: `q${OPEN_ASKS_MAX + 9}` })
    expect(facts.openAsks).toHaveLength(OPEN_ASKS_MAX)
    expect(facts.openAsks[0]).toBe("q10")
    expect(observe(facts, { type: "ask.closed", id: "q10" }).openAsks).toHaveLength(OPEN_ASKS_MAX - 1)
  })
})

describe("the agent's access to todo", () => {
  const deny = { permission: "todo", pattern: "*", action: "deny" } as const
  const AGENTS = new Map([
    ["build", [{ permission: "*", pattern: "*", action: "allow" } as const]],
    ["review", [{ permission: "*", pattern: "*", action: "allow" } as const, deny]],
  ])
  const as = (agent: string, tools?: Record<string, boolean>): HostEvent => ({
    type: "user.message",
    parts: [{ type: "text", text: "Fix the parser" }],
    user: { agent },
    ...(tools ? { tools } : {}),
  })
  const step = (session: Session, event: HostEvent) => stepSession(session, event, [], CONFIG, AGENTS)

  it("is the turn's agent over its rules, then the session's, then the prompt's tools", () => {
    let s = step(initialSession(), { type: "session.created" }).session
    s = step(s, as("review")).session
    expect(todoAccess(s.facts, AGENTS)).toBe("deny")
    s = step(s, as("build")).session
    expect(todoAccess(s.facts, AGENTS)).toBe("allow")
    expect(todoAccess(s.facts, undefined), "unknown rules allow").toBe("allow")
    s = step(s, { type: "session.updated", rules: [deny], revert: null }).session
    expect(todoAccess(s.facts, AGENTS)).toBe("deny")
    s = step(s, { type: "session.updated", rules: [], revert: null }).session
    s = step(s, as("build", { todo: false })).session
    expect(todoAccess(s.facts, AGENTS)).toBe("deny")
    // Our own message starts a turn as its agent without becoming the user's prompt.
    s = step(s, {
      type: "user.message",
      parts: [{ type: "text", text: `${MARKER}\nx`, synthetic: true }],
      user: { agent: "review" },
    }).session
    expect([todoAccess(s.facts, AGENTS), s.facts.lastUser?.agent]).toEqual(["deny", "build"])
  })

  it("the prelude waits for the first prompt to an agent that may call todo", () => {
    let s = step(initialSession(), { type: "session.created" }).session
    const denied = step(s, as("review"))
    expect(denied.actions).toEqual([])
    s = denied.session
    expect(step(s, as("build")).actions.map((a) => ("kind" in a ? a.kind : a.type))).toEqual(["prelude"])
  })
})

describe("edit notes found with the stored list", () => {
  const notes = [{ lines: ['done "Write parser"'], removed: ["Old"] }]
  it("are spent by a resume", () => {
    const d = new Driver()
    d.send({ type: "parent.found" })
    expect(d.kinds({ type: "list.loaded", edits: notes })).toEqual([])
    expect(d.kinds(prompt())).toEqual(["attach:resume"])
    expect(d.kinds({ type: "model.request" })).toEqual([])
  })
  it("are delivered for a session created here", () => {
    const d = new Driver()
    d.send({ type: "session.created" })
    d.send({ type: "list.loaded", edits: notes })
    expect(d.kinds(prompt())).toEqual(["attach:user-edit"])
  })
})

describe("the step", () => {
  it("attaches the prelude to the first real prompt of a session created here, not of a resumed one", () => {
    const here = new Driver([])
    here.send({ type: "session.created" })
    expect(here.kinds(prompt())).toEqual(["attach:prelude"])
    const resumed = new Driver([])
    resumed.send({ type: "parent.found" })
    expect(resumed.kinds(prompt())).toEqual([])
  })

  it("a stored list found on first load is a resume, unless the session was created here", () => {
    const resumed = new Driver()
    resumed.send({ type: "list.loaded" })
    expect(resumed.kinds(prompt())).toEqual(["attach:resume"])
    const here = new Driver()
    here.send({ type: "session.created" })
    here.send({ type: "list.loaded" })
    expect(here.kinds(prompt())).toEqual([])
    const empty = new Driver([])
    empty.send({ type: "list.loaded" })
    expect(empty.kinds(prompt())).toEqual([])
  })

  it("compaction: the hook gets the list as context, the summarizer's request nothing, the next request the notice", () => {
    const d = Driver.started()
    expect(d.kinds({ type: "compacting" })).toEqual(["inject:compaction-context"])
    expect(d.kinds({ type: "model.request" })).toEqual([])
    expect(d.kinds({ type: "session.compacted" })).toEqual([])
    expect(d.kinds({ type: "model.request" })).toEqual(["inject:compaction"])
    expect(d.kinds({ type: "model.request" })).toEqual([])
  })

  it("an update whose op was inferred from its shape drops a queued nudge", () => {
    for (const ops of [["append"], ["init"]] as const) {
      const d = Driver.started()
      for (let i = 0; i < CONFIG.nudgeAfter; i++) d.send({ type: "tool.finished", tool: "bash", ok: true })
      d.send({ type: "todo.finished", ok: true, ops })
      expect(d.kinds({ type: "model.request" })).toEqual([])
    }
    const viewed = Driver.started()
    for (let i = 0; i < CONFIG.nudgeAfter; i++) viewed.send({ type: "tool.finished", tool: "bash", ok: true })
    viewed.send({ type: "todo.finished", ok: true, ops: ["view"] })
    expect(viewed.kinds({ type: "model.request" })).toEqual(["inject:nudge"])
  })

  it("the generic tool report of the todo tool counts for nothing; the tool's own report does", () => {
    const d = Driver.started()
    for (let i = 0; i < CONFIG.nudgeAfter - 1; i++) d.send({ type: "tool.finished", tool: "bash", ok: true })
    d.send({ type: "tool.finished", tool: "todo", ok: true })
    d.send({ type: "tool.finished", tool: "bash", ok: true })
    expect(d.kinds({ type: "model.request" })).toEqual(["inject:nudge"])
  })

  it("reminds at idle with the last real prompt's agent, model and variant", () => {
    const d = Driver.started()
    d.send(ours())
    const actions = d.send({ type: "session.idle" })
    expect(actions).toHaveLength(1)
    expect(actions[0]).toMatchObject({ type: "remind", kind: "reminder", user: USER })
  })

  it("stays quiet at idle before a real prompt, after an abort or an interruption, while a request is open, in a subagent, and when asked", () => {
    const quiet = (setup: (d: Driver) => void, created = true) => {
      const d = new Driver()
      if (created) d.send({ type: "session.created" })
      setup(d)
      return d.kinds({ type: "session.idle" })
    }
    expect(quiet(() => {})).toEqual([])
    expect(
      quiet((d) => {
        d.send(prompt())
        d.send({ type: "session.error", aborted: true })
      }),
    ).toEqual([])
    expect(
      quiet((d) => {
        d.send(prompt())
        d.send({ type: "assistant.updated", messageID: "a1", endedOnToolCalls: true })
      }),
    ).toEqual([])
    expect(
      quiet((d) => {
        d.send(prompt())
        d.send({ type: "ask.opened", id: "per_1" })
      }),
    ).toEqual([])
    expect(
      quiet((d) => {
        d.send(prompt())
        d.send({ type: "ask.opened", id: "per_1" })
        d.send({ type: "ask.closed", id: "per_1" })
      }),
    ).toEqual(["remind:reminder"])
    expect(
      quiet((d) => {
        d.send({ type: "session.created", parentID: "ses_parent" })
        d.send(prompt())
      }),
    ).toEqual([])
    expect(
      quiet((d) => {
        d.send(prompt())
        d.send({ type: "assistant.updated", messageID: "a1", endedOnToolCalls: false })
        d.send({ type: "part.text", messageID: "a1", text: "Two ways to do it. Should I rewrite it?" })
      }),
    ).toEqual([])
  })

  it("a real prompt after an abort makes reminders possible again", () => {
    const d = Driver.started()
    d.send({ type: "session.error", aborted: true })
    expect(d.kinds({ type: "session.idle" })).toEqual([])
    d.send(prompt("Go on"))
    expect(d.kinds({ type: "session.idle" })).toEqual(["remind:reminder"])
  })

  it("forgets a deleted session", () => {
    expect(Driver.started().send({ type: "session.deleted" })).toEqual([{ type: "forget" }])
  })
})

// ---- properties ---------------------------------------------------------------------------------------

const LISTS: TodoList[] = [OPEN, [], [{ name: "Done", tasks: [{ text: "x", status: "completed" }] }]]

const hostEvent: fc.Arbitrary<HostEvent> = fc.oneof(
  fc.constant<HostEvent>({ type: "session.created" }),
  fc.constant<HostEvent>({ type: "session.created", parentID: "ses_p" }),
  fc.constant<HostEvent>({ type: "session.compacted" }),
  fc.boolean().map((aborted): HostEvent => ({ type: "session.error", aborted })),
  { arbitrary: fc.constant<HostEvent>({ type: "session.idle" }), weight: 8 },
  fc
    .record({
      id: fc.constantFrom("a1", "a2"),
      tools: fc.boolean(),
      error: fc.constantFrom(undefined, "aborted", "failed"),
    })
    .map(
      ({ id, tools, error }): HostEvent => ({
        type: "assistant.updated",
        messageID: id,
        endedOnToolCalls: tools,
        ...(error ? { error: error as "aborted" | "failed" } : {}),
      }),
    ),
  fc
    .record({ id: fc.constantFrom("a1", "a2"), text: fc.constantFrom("Done.", "Should I go on?", "") })
    .map(({ id, text }): HostEvent => ({ type: "part.text", messageID: id, text })),
  fc.constantFrom("q1", "q2").map((id): HostEvent => ({ type: "ask.opened", id })),
  fc.constantFrom("q1", "q2").map((id): HostEvent => ({ type: "ask.closed", id })),
  { arbitrary: fc.constant(prompt()), weight: 8 },
  fc.constant(ours()),
  fc.constant<HostEvent>({ type: "model.request" }),
  fc.constant<HostEvent>({ type: "compacting" }),
  fc
    .constantFrom("bash", "edit", "read", "todo")
    .map((tool): HostEvent => ({ type: "tool.finished", tool, ok: true })),
  fc
    .constantFrom(["view"] as const, ["done"] as const, ["append"] as const, [] as const)
    .map((ops): HostEvent => ({ type: "todo.finished", ok: true, ops })),
  fc.constant<HostEvent>({ type: "parent.found" }),
  fc.constant<HostEvent>({ type: "list.loaded" }),
  fc.constant<HostEvent>({ type: "list.edited", lines: ['done "x"'], removed: [] }),
  fc
    .option(fc.constantFrom("m1", "m2"), { nil: null })
    .map(
      (m): HostEvent => ({ type: "session.updated", rules: [], revert: m === null ? null : { message: m } }),
    ),
  fc.constantFrom("m1", "m2").map((messageID): HostEvent => ({ type: "message.removed", messageID })),
)

const run = fc.array(fc.tuple(hostEvent, fc.nat(LISTS.length - 1)), { maxLength: 60 })

describe("properties", () => {
  it("an event stepped on arrival commutes with the events queued ahead of it: the same session, the same actions", () => {
    const announced = fc
      .record({ call: fc.constantFrom("c1", "c2"), part: fc.constantFrom("p1", "p2", "p3") })
      .map(
        ({ call, part }): HostEvent => ({ type: "todo.part", callID: call, messageID: "m1", partID: part }),
      )
    let moved = 0
    fc.assert(
      // Whatever the server steps on arrival, not only the announcement the arbitrary offers most.
      fc.property(
        run,
        run,
        fc.oneof(announced, hostEvent).filter(stepsOnArrival),
        (before, queued, early) => {
          const ahead = queued.filter(([event]) => !stepsOnArrival(event))
          let session = initialSession()
          for (const [event, list] of before)
            session = stepSession(session, event, LISTS[list]!, CONFIG).session
          /** The queued events stepped with the announcement at `at`; the actions of the queued ones. */
          const play = (at: number) => {
            let s = session
            const actions: SessionAction[][] = []
            ahead.forEach(([event, list], i) => {
              if (i === at) {
                const step = stepSession(s, early, OPEN, CONFIG)
                expect(step.actions).toEqual([])
                s = step.session
              }
              const step = stepSession(s, event, LISTS[list]!, CONFIG)
              s = step.session
              actions.push([...step.actions])
            })
            if (at >= ahead.length) s = stepSession(s, early, OPEN, CONFIG).session
            return { session: s, actions }
          }
          const inTurn = play(ahead.length)
          for (let at = 0; at < ahead.length; at++) {
            expect(play(at)).toEqual(inTurn)
            moved++
          }
        },
      ),
    )
    expect(moved).toBeGreaterThan(0)
  })

  it("the session stays plain, bounded data", () => {
    fc.assert(
      fc.property(run, (events) => {
        let session = initialSession()
        for (const [event, list] of events) {
          session = stepSession(session, event, LISTS[list]!, CONFIG).session
          expect(JSON.parse(JSON.stringify(session))).toStrictEqual(session)
          expect(new Set(session.facts.openAsks).size).toBe(session.facts.openAsks.length)
        }
      }),
    )
  })

  it("a reminder goes out only at idle after a real prompt, never while a request is open, after an abort or error, or in a subagent", () => {
    let reminded = 0
    fc.assert(
      fc.property(run, (events) => {
        let session = initialSession()
        let prompted = false
        for (const [event, list] of events) {
          const before = session.facts
          const step = stepSession(session, event, LISTS[list]!, CONFIG)
          session = step.session
          if (event.type === "user.message" && event.parts[0]?.synthetic !== true) prompted = true
          for (const action of step.actions) {
            if (action.type !== "remind") continue
            expect(prompted).toBe(true)
            expect(event.type).toBe("session.idle")
            expect(before.openAsks).toEqual([])
            expect(before.aborted || before.interrupted || before.errored).toBe(false)
            expect(before.subagent).not.toBe(true)
            expect(action.user).toEqual(USER)
            reminded++
          }
        }
      }),
    )
    // The property is not vacuous: reminders did go out.
    expect(reminded).toBeGreaterThan(0)
  })

  it("no reminder goes out while an undo is pending, and every undo, redo and commit is handed to the server", () => {
    let followed = 0
    fc.assert(
      fc.property(run, (events) => {
        let session = initialSession()
        for (const [event, list] of events) {
          const before = session.facts.rewind.revert
          const step = stepSession(session, event, LISTS[list]!, CONFIG)
          session = step.session
          for (const action of step.actions) if (action.type === "remind") expect(before).toBeNull()
          const history = step.actions.filter((a) => a.type === "history")
          if (session.facts.rewind.revert !== before) expect(history).toHaveLength(1)
          followed += history.length
        }
      }),
    )
    expect(followed).toBeGreaterThan(0)
  })

  it("whatever happened, two main requests in a row deliver every notice and the third says nothing", () => {
    fc.assert(
      fc.property(run, fc.nat(LISTS.length - 1), (events, last) => {
        let session = initialSession()
        for (const [event, list] of events)
          session = stepSession(session, event, LISTS[list]!, CONFIG).session
        const request = () => {
          const step = stepSession(session, { type: "model.request" }, LISTS[last]!, CONFIG)
          session = step.session
          return step.actions
        }
        request()
        request()
        expect(request()).toEqual([])
      }),
    )
  })
})
