import { describe, expect, it } from "vitest"
import { answerWithin, LATE, withinMs } from "../../src/shared/wait.ts"

const never = new Promise<string>(() => {})

describe("bounded waits on the host", () => {
  it("gives the answer when it comes in time, even an answer that says nothing", async () => {
    expect(await answerWithin(Promise.resolve("a"), 1000)).toBe("a")
    expect(await answerWithin(Promise.resolve(undefined), 1000)).toBeUndefined()
    expect(await withinMs(Promise.resolve("a"), 1000)).toBe("a")
  })

  it("says LATE when the host does not answer, and withinMs reads late as unsaid", async () => {
    expect(await answerWithin(never, 5)).toBe(LATE)
    expect(await withinMs(never, 5)).toBeUndefined()
  })

  it("passes a failure on to the caller, who decides what it means", async () => {
    await expect(withinMs(Promise.reject(new Error("down")), 1000)).rejects.toThrow("down")
  })
})
