export declare const ROOM_ORDER: readonly string[]
export declare function roomViolations(
  core: string,
): { readonly file: string; readonly specifier: string; readonly problem: string }[]
