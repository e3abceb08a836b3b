export declare const FILE_MAX: number
export declare const FUNCTION_MAX: number
export declare const HEADER_MAX: number
export declare function headerLines(text: string): number
export declare function functionLengths(
  text: string,
  fileName?: string,
): { readonly name: string; readonly line: number; readonly lines: number }[]
export declare function sizeViolations(
  src: string,
  allowed?: Readonly<Record<string, string>>,
): { readonly file: string; readonly problem: string }[]
