// Retrieval chunks (chunkHints=true), shared by the PDF and Office/OpenDocument families.
// Chunks follow the heading structure: a heading starts a new chunk, and a section longer
// than the budget is split between blocks (never inside a block unless a single block is
// itself over budget, then between sentences).
import { mergeProvenance } from './kit/provenance-merge.js';
import type { Provenance } from './kit/provenance.js';

export interface ChunkSourceBlock {
  /** Stable reference to the block in content, e.g. "p3.b12" or "body.17". */
  ref: string;
  text: string;
  kind: 'heading' | 'paragraph' | 'list' | 'table' | 'other';
  /** Heading level (1 = top); only for headings. */
  level?: number;
  /** 1-based page (or sheet/slide) number, when the format has pages. */
  page?: number;
  /** Where the block is in the document (page and box, sheet and range, slide). */
  provenance?: Provenance;
}

export interface Chunk {
  index: number;
  text: string;
  /** Headings in force for this chunk, outermost first. */
  headingPath: string[];
  pages: number[];
  blockRefs: string[];
  tokenEstimate: number;
  /** Where the chunk's text is: one entry per page, sheet or slide, its blocks' boxes or ranges joined. */
  provenance?: Provenance[];
}

/**
 * Token estimate used for budgets: ceil(characters / 4), the usual rule of thumb for
 * English text with GPT-style BPE tokenizers (documented in the README).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export const DEFAULT_CHUNK_TOKENS = 512;

export function buildChunks(blocks: Iterable<ChunkSourceBlock>, maxTokens = DEFAULT_CHUNK_TOKENS): Chunk[] {
  const chunks: Chunk[] = [];
  const headingPath: { level: number; text: string }[] = [];
  let cur: { parts: string[]; pages: Set<number>; refs: string[]; tokens: number; path: string[]; provenance: Provenance[] } | null = null;

  const flush = () => {
    if (cur && cur.parts.length) {
      const text = cur.parts.join('\n\n');
      chunks.push({
        index: chunks.length,
        text,
        headingPath: cur.path,
        pages: [...cur.pages].sort((a, b) => a - b),
        blockRefs: cur.refs,
        tokenEstimate: estimateTokens(text),
        ...(cur.provenance.length ? { provenance: cur.provenance } : {}),
      });
    }
    cur = null;
  };
  const open = () => {
    cur = { parts: [], pages: new Set(), refs: [], tokens: 0, path: headingPath.map((h) => h.text), provenance: [] };
    return cur;
  };
  const add = (b: ChunkSourceBlock, text: string) => {
    const t = estimateTokens(text);
    let c = cur ?? open();
    if (c.tokens + t > maxTokens && c.parts.length) {
      flush();
      c = open();
    }
    c.parts.push(text);
    c.tokens += t;
    if (b.page !== undefined) c.pages.add(b.page);
    if (!c.refs.includes(b.ref)) c.refs.push(b.ref);
    if (b.provenance) mergeProvenance(c.provenance, b.provenance);
  };

  for (const b of blocks) {
    const text = b.text.trim();
    if (!text) continue;
    if (b.kind === 'heading') {
      flush();
      const level = b.level ?? 1;
      while (headingPath.length && headingPath[headingPath.length - 1].level >= level) headingPath.pop();
      headingPath.push({ level, text });
      open();
      add(b, text);
      continue;
    }
    if (estimateTokens(text) <= maxTokens) {
      add(b, text);
      continue;
    }
    // One block over budget: split between sentences, falling back to hard cuts.
    for (const piece of splitLong(text, maxTokens * 4)) add(b, piece);
  }
  flush();
  return chunks;
}

function splitLong(text: string, maxChars: number): string[] {
  const sentences = text.match(/[^.!?\n]+[.!?]*\s*|\n+/g) ?? [text];
  const out: string[] = [];
  let buf = '';
  for (const s of sentences) {
    if (buf.length + s.length > maxChars && buf) {
      out.push(buf.trim());
      buf = '';
    }
    if (s.length > maxChars) {
      for (let i = 0; i < s.length; i += maxChars) out.push(s.slice(i, i + maxChars).trim());
      continue;
    }
    buf += s;
  }
  if (buf.trim()) out.push(buf.trim());
  return out.filter(Boolean);
}
