// Solid's universal JSX transform for our own .tsx files, as one bundler plugin both the build
// (tsdown.config.ts, target @opentui/solid: the host's renderer) and the TUI tests (vitest.config.ts,
// target a plain-object renderer in test/fixtures) use, so tests run the code the build ships.
// @ts-expect-error: no types installed for babel
import { transformAsync } from "@babel/core"
// @ts-expect-error: no types installed for babel
import presetTypescript from "@babel/preset-typescript"
// @ts-expect-error: no types installed for babel
import presetSolid from "babel-preset-solid"

export function solidUniversal(moduleName = "@opentui/solid") {
  return {
    name: "opencode-todo:solid-universal",
    transform: {
      filter: { id: { include: /\.tsx$/, exclude: /[/\\]node_modules[/\\]/ } },
      async handler(code: string, id: string) {
        const out = await transformAsync(code, {
          filename: id,
          babelrc: false,
          configFile: false,
          sourceMaps: true,
          presets: [
            [presetSolid, { generate: "universal", moduleName }],
            [presetTypescript, { isTSX: true, allExtensions: true, onlyRemoveTypeImports: false }],
          ],
        })
        if (!out?.code) throw new Error(`Solid transform produced no code for ${id}`)
        return { code: out.code as string, map: out.map ?? null, moduleType: "js" }
      },
    },
  }
}
