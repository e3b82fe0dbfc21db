// The attachments of e-mail content at every depth, for tests that walk them.

/** Every attachment at every depth with the path the content puts it at (from 1 per level). */
export function attachmentsWithPath(messages: any[]): { a: any; message: number; path: number[] }[] {
  const out: { a: any; message: number; path: number[] }[] = [];
  const walk = (m: any, message: number, path: number[]): void =>
    m.attachments.forEach((a: any, i: number) => {
      out.push({ a, message, path: [...path, i + 1] });
      if (a.message) walk(a.message, message, [...path, i + 1]);
    });
  messages.forEach((m, i) => walk(m, i + 1, []));
  return out;
}
