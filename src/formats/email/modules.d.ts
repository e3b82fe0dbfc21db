// Minimal typings for packages that ship none.
declare module 'libmime' {
  const libmime: { decodeWords(s: string): string };
  export default libmime;
}
declare module 'html-to-text' {
  export function convert(html: string, options?: Record<string, unknown>): string;
  export function compile(options?: Record<string, unknown>): (html: string) => string;
}
