// The package's skills folder: beside dist/ when built (dist/server.mjs), two levels up when the source runs
// directly (src/server/*.ts, in tests). Both host bindings offer the todo-discipline skill from it.

import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const HERE = dirname(fileURLToPath(import.meta.url))

export const SKILLS_DIR =
  [join(HERE, "..", "skills"), join(HERE, "..", "..", "skills")].find((dir) =>
    existsSync(join(dir, "todo-discipline")),
  ) ?? join(HERE, "..", "skills")
