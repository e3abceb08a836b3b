import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import * as fsp from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { CONFIG_MAX_BYTES, readTextFile, replaceFile, TODO_MAX_BYTES } from "../../src/shared/safe-file.ts"
import { loadSettings } from "../../src/shared/settings.ts"

const unix = process.platform !== "win32"
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "todo-safe-file-"))
})

function fifo(path: string): void {
  const made = spawnSync("mkfifo", [path])
  if (made.status !== 0) throw new Error("mkfifo failed")
}

describe("readTextFile", () => {
  it.runIf(unix)("refuses /dev/zero behind a symlink without reading it", { timeout: 5000 }, async () => {
    symlinkSync("/dev/zero", join(dir, "zero"))
    expect(await readTextFile(join(dir, "zero"), CONFIG_MAX_BYTES)).toEqual({
      ok: false,
      kind: "special",
      what: "a device or socket",
    })
  })

  it.runIf(unix)("refuses a FIFO without waiting for a writer", { timeout: 5000 }, async () => {
    fifo(join(dir, "pipe"))
    expect(await readTextFile(join(dir, "pipe"), TODO_MAX_BYTES)).toMatchObject({
      ok: false,
      what: "a named pipe",
    })
  })

  it("refuses a 100 MB file by its size, and a folder", async () => {
    const big = join(dir, "big.md")
    writeFileSync(big, "")
    truncateSync(big, 100 * 1024 * 1024)
    expect(await readTextFile(big, TODO_MAX_BYTES)).toEqual({
      ok: false,
      kind: "too-large",
      max: TODO_MAX_BYTES,
    })
    expect(await readTextFile(dir, TODO_MAX_BYTES)).toMatchObject({ ok: false, what: "a folder" })
  })

  it("reads a file of exactly the cap, refuses one byte more, and refuses bytes that are not UTF-8", async () => {
    const path = join(dir, "f")
    writeFileSync(path, "a".repeat(10))
    expect(await readTextFile(path, 10)).toEqual({ ok: true, text: "a".repeat(10) })
    writeFileSync(path, "a".repeat(11))
    expect(await readTextFile(path, 10)).toMatchObject({ ok: false, kind: "too-large" })
    writeFileSync(path, Buffer.from([0x2d, 0xff, 0xfe]))
    expect(await readTextFile(path, 10)).toEqual({ ok: false, kind: "not-text" })
    expect(await readTextFile(join(dir, "nope"), 10)).toEqual({ ok: false, kind: "missing" })
  })
})

describe("replaceFile", () => {
  it.runIf(unix)("refuses to write through a symlink, dangling or not", async () => {
    const outside = join(dir, "outside")
    writeFileSync(outside, "keep")
    symlinkSync(outside, join(dir, "link"))
    symlinkSync(join(dir, "new-file"), join(dir, "dangling"))
    await expect(replaceFile(join(dir, "link"), "x")).rejects.toMatchObject({ code: "ELOOP" })
    await expect(replaceFile(join(dir, "dangling"), "x")).rejects.toMatchObject({ code: "ELOOP" })
    expect(readFileSync(outside, "utf8")).toBe("keep")
    await expect(fsp.stat(join(dir, "new-file"))).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("leaves the old file whole when the disk is full", async () => {
    const path = join(dir, "TODO.md")
    writeFileSync(path, "old contents")
    const full = {
      ...fsp,
      open: async (...args: Parameters<typeof fsp.open>) => {
        const handle = await fsp.open(...args)
        return Object.assign(handle, {
          writeFile: async () => {
            throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" })
          },
        })
      },
    }
    await expect(replaceFile(path, "new contents", full)).rejects.toMatchObject({ code: "ENOSPC" })
    expect(readFileSync(path, "utf8")).toBe("old contents")
    expect((await fsp.readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([])
  })

  it("fails, rather than report a write, when its temporary file is gone before the rename", async () => {
    const path = join(dir, "TODO.md")
    writeFileSync(path, "old contents")
    const swept = {
      ...fsp,
      rename: async () => {
        throw Object.assign(new Error("no such file or directory"), { code: "ENOENT" })
      },
    }
    await expect(replaceFile(path, "new contents", swept)).rejects.toMatchObject({ code: "ENOENT" })
    expect(readFileSync(path, "utf8")).toBe("old contents")
  })
})

describe("loadSettings", () => {
  const env = (home: string) => ({ HOME: home, XDG_CONFIG_HOME: join(home, "config") })

  it.runIf(unix)(
    "warns about a project todo.json that is a symlink to /dev/zero or a FIFO",
    { timeout: 5000 },
    async () => {
      mkdirSync(join(dir, ".opencode"))
      symlinkSync("/dev/zero", join(dir, ".opencode", "todo.json"))
      const zero = await loadSettings({ directory: dir, env: env(dir) })
      expect(zero.config.enabled).toBe(true)
      expect(zero.warnings).toEqual(["project todo.json is a device or socket, not a regular file; ignored."])
      mkdirSync(join(dir, "config", "opencode"), { recursive: true })
      fifo(join(dir, "config", "opencode", "todo.json"))
      const pipe = await loadSettings({ directory: dir, env: env(dir) })
      expect(pipe.warnings[0]).toBe("global todo.json is a named pipe, not a regular file; ignored.")
    },
  )

  it("ignores a todo.json over 1 MB with a warning", async () => {
    mkdirSync(join(dir, ".opencode"))
    writeFileSync(
      join(dir, ".opencode", "todo.json"),
      `{"enabled": false, "x": "${"a".repeat(CONFIG_MAX_BYTES)}"}`,
    )
    const out = await loadSettings({ directory: dir, env: env(dir) })
    expect(out.config.enabled).toBe(true)
    expect(out.warnings).toEqual(["project todo.json is larger than 1 MB; ignored."])
  })
})
