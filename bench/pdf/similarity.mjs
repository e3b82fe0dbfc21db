// Text similarity used by the PDF quality tests and bench: word sequences (NFKC, whitespace
// normalised, end-of-line hyphenation removed on both sides) compared with an LCS
// (Myers O(ND) diff); similarity = 2·LCS / (|a| + |b|), i.e. difflib's ratio on words.

export function normaliseWords(text) {
  return text
    .normalize('NFKC')
    .replace(/(\p{L})[-\u00ad]\s*\n\s*(\p{Ll})/gu, '$1$2')
    .replace(/[\u200b\ufeff\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .split(/\s+/)
    .filter(Boolean);
}

/** Length of the longest common subsequence of two arrays (Myers), capped at maxD edits. */
export function lcsLength(a, b, maxD = 20000) {
  const n = a.length,
    m = b.length;
  if (!n || !m) return 0;
  const max = Math.min(n + m, maxD);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return (n + m - d) / 2;
    }
  }
  // Too different for the cap: fall back to a bag-of-words overlap (an upper bound).
  const counts = new Map();
  for (const w of a) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of b) {
    const c = counts.get(w);
    if (c) {
      counts.set(w, c - 1);
      common++;
    }
  }
  return common;
}

/** Characters of a text with all whitespace removed (NFKC, hyphenation removed). */
export function normaliseChars(text) {
  return Array.from(normaliseWords(text).join(''));
}

/**
 * Similarity of two texts given as per-page strings: per page, the LCS of their characters
 * with whitespace removed (so word-joining differences do not count, but order does);
 * pooled over pages as 2·LCS / (|a| + |b|).
 */
export function pagedSimilarity(pagesA, pagesB) {
  let lcs = 0,
    total = 0;
  const n = Math.max(pagesA.length, pagesB.length);
  for (let i = 0; i < n; i++) {
    const a = normaliseChars(pagesA[i] ?? '');
    const b = normaliseChars(pagesB[i] ?? '');
    lcs += lcsLength(a, b);
    total += a.length + b.length;
  }
  return total ? (2 * lcs) / total : 1;
}

/** Bag-of-words recall of `expected` words found in `actual` (OCR word recall). */
export function wordRecall(expected, actual) {
  const norm = (t) =>
    normaliseWords(t)
      .map((w) => w.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
      .filter((w) => w.length > 0);
  const counts = new Map();
  for (const w of norm(actual)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const exp = norm(expected);
  let hit = 0;
  for (const w of exp) {
    const c = counts.get(w);
    if (c) {
      counts.set(w, c - 1);
      hit++;
    }
  }
  return exp.length ? hit / exp.length : 1;
}

/** Per-page text of an artifact, blocks in reading order. */
export function artifactPageTexts(artifact) {
  return artifact.content.pages.map((p) => p.blocks.map((b) => b.text).join('\n'));
}

/**
 * Reading order: of the reference's lines of ≥ 6 words (hyphenated line ends skipped), how
 * many appear whole (same words, same order) in our text of the same page — a line mixing
 * two columns would not. Pages are paired by index over the reference's pages.
 */
export function wholeLines(oursPages, refPages) {
  let total = 0,
    found = 0;
  refPages.forEach((page, i) => {
    const hay = ' ' + normaliseWords(oursPages[i] ?? '').join(' ') + ' ';
    for (const line of page.split('\n')) {
      const words = normaliseWords(line);
      if (words.length < 6 || /-$/.test(line.trim())) continue;
      total++;
      if (hay.includes(' ' + words.join(' ') + ' ')) found++;
    }
  });
  return { total, found };
}
