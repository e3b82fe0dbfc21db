// Reads relative links out of Markdown and checks that each one resolves: the file exists and,
// for a `#fragment` into a Markdown file, a heading with that GitHub anchor exists there.
// Small on purpose: inline links and images only, code spans and fenced blocks ignored.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface MarkdownLink {
  /** The file the link is in, and its line (1-based). */
  file: string;
  line: number;
  target: string;
}

const FENCE = /^\s*(```|~~~)/;
// [text](target) or ![alt](target), optionally with a "title"; text without nested brackets
// is enough for these pages once code spans are blanked.
const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** Lines of `text` outside fenced code blocks, code spans blanked; fenced lines become ''. */
function proseLines(text: string): string[] {
  let inFence = false;
  return text.split('\n').map((line) => {
    if (FENCE.test(line)) {
      inFence = !inFence;
      return '';
    }
    if (inFence) return '';
    // `code` and ``code with ` inside`` are not links.
    return line.replace(/(`+)[\s\S]*?\1/g, (m) => ' '.repeat(m.length));
  });
}

export function linksIn(file: string, text: string): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  proseLines(text).forEach((line, i) => {
    for (const m of line.matchAll(INLINE_LINK)) out.push({ file, line: i + 1, target: m[1] });
  });
  return out;
}

/** The anchor GitHub gives a heading: lower-cased, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*)/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings (duplicates numbered) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = githubSlug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** What is wrong with each relative link of `file` (empty when all resolve). */
export function brokenLinks(repoRoot: string, file: string): string[] {
  const abs = path.join(repoRoot, file);
  const text = readFileSync(abs, 'utf8');
  const problems: string[] = [];
  for (const link of linksIn(file, text)) {
    const where = `${file}:${link.line}: ${link.target}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // http:, https:, mailto: …
    if (link.target.startsWith('/')) {
      problems.push(`${where} — a site-absolute path does not resolve in the repository; use a relative one`);
      continue;
    }
    const hash = link.target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
    const fragment = hash < 0 ? null : decodeURIComponent(link.target.slice(hash + 1));
    const targetAbs = pathPart === '' ? abs : path.resolve(path.dirname(abs), pathPart);
    const targetRel = path.relative(repoRoot, targetAbs).split(path.sep).join('/');
    if (!existsSync(targetAbs)) {
      problems.push(`${where} — ${targetRel} does not exist`);
      continue;
    }
    if (fragment === null || !targetAbs.endsWith('.md') || statSync(targetAbs).isDirectory()) continue;
    if (!anchorsOf(readFileSync(targetAbs, 'utf8')).has(fragment)) {
      problems.push(`${where} — ${targetRel} has no heading with the anchor #${fragment}`);
    }
  }
  return problems;
}

/** Markdown files under `dir` (relative to the repository), recursively, sorted. */
export function markdownFilesUnder(repoRoot: string, dir: string): string[] {
  const abs = path.join(repoRoot, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...markdownFilesUnder(repoRoot, rel));
    else if (entry.name.endsWith('.md')) out.push(rel);
  }
  return out.sort();
}

/** The Markdown files reachable from `start` by relative links (start included). */
export function reachableFrom(repoRoot: string, start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const abs = path.join(repoRoot, file);
    for (const link of linksIn(file, readFileSync(abs, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target) || link.target.startsWith('/')) continue;
      const pathPart = decodeURIComponent(link.target.split('#')[0]);
      if (!pathPart.endsWith('.md')) continue;
      const targetAbs = path.resolve(path.dirname(abs), pathPart);
      if (existsSync(targetAbs)) queue.push(path.relative(repoRoot, targetAbs).split(path.sep).join('/'));
    }
  }
  return seen;
}
