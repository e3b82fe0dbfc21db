// OpenDocument's counts that hang LibreOffice (guard-limits.ts), read from the XML before it
// sees the file: text columns of section and page styles (fo:column-count, used by
// text:section elements and page layouts) and cells with content repeated over rows and
// columns (table:number-rows-repeated × table:number-columns-repeated: a 1 KB flat ODS asking
// for one value in every cell of a sheet never finishes). Empty repeated cells, which
// LibreOffice itself writes to the sheet's edge, cost nothing and are not counted. The XML is
// streamed (saxes): a package's styles.xml then content.xml, or a flat file as it is.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';
import { ColumnTally, RepeatTally } from './guard-limits.js';
import type { ZipPackage } from './zip.js';

/** Checks an OpenDocument package (styles first: sections may use its styles). */
export async function guardOdfPackage(zip: ZipPackage): Promise<void> {
  const scan = new OdfScan();
  for (const part of ['styles.xml', 'content.xml']) {
    if (!zip.resolve(part)) continue;
    const feed = scan.part(part);
    await zip.stream(part, feed.write);
    feed.end();
  }
}

/** Checks a flat OpenDocument file (.fodt, .fods, .fodp): one XML document holding it all. */
export async function guardFlatOdf(filePath: string): Promise<void> {
  const feed = new OdfScan().part('the flat OpenDocument file');
  for await (const chunk of createReadStream(filePath, { highWaterMark: 1 << 16 })) feed.write(chunk as Buffer);
  feed.end();
}

/** `table:number-rows-repeated` → 'number-rows-repeated', whatever the prefix. */
const local = (name: string) => name.slice(name.indexOf(':') + 1);

function attr(tag: SaxesTagPlain, name: string): string | undefined {
  for (const [k, v] of Object.entries(tag.attributes)) if (local(k) === name) return v;
  return undefined;
}

/** A count attribute: 1 when absent or not a count (LibreOffice reads those as 1 too). */
function count(tag: SaxesTagPlain, name: string): number {
  const n = Number(attr(tag, name));
  return Number.isSafeInteger(n) && n > 1 ? n : 1;
}

class OdfScan {
  private readonly columns = new ColumnTally();
  private readonly repeats = new RepeatTally();
  /** Columns of each section style seen so far, by style name. */
  private readonly sectionColumns = new Map<string, number>();
  /** The style being read: its name and family ('section', 'page-layout' …). */
  private style: { name: string; family: string } | null = null;
  /** Row repetition of each open table row (tables nest in cells). */
  private readonly rows: number[] = [];
  /** The open cell: its column repetition, and whether it holds anything. */
  private cell: { columns: number; content: boolean; depth: number } | null = null;
  private depth = 0;

  /** A writer for one XML document; `what` names it in parse errors. */
  part(what: string): { write: (chunk: Buffer) => void; end: () => void } {
    const parser = new SaxesParser();
    const decoder = new StringDecoder('utf8');
    this.depth = 0;
    parser.on('opentag', (tag) => this.open(tag));
    parser.on('closetag', (tag) => this.close(tag));
    const guarded = (fn: () => void) => {
      try {
        fn();
      } catch (err) {
        if (err instanceof ExtractionError) throw err;
        throw new ExtractionError(`malformed XML in ${what}: the part is damaged or truncated`, 'extraction_failed', false, { cause: err });
      }
    };
    return {
      write: (chunk) => guarded(() => parser.write(decoder.write(chunk))),
      end: () => guarded(() => parser.write(decoder.end()).close()),
    };
  }

  private open(tag: SaxesTagPlain): void {
    this.depth++;
    if (this.cell && this.depth > this.cell.depth) this.cell.content = true;
    switch (local(tag.name)) {
      case 'style':
      case 'page-layout':
        this.style = { name: attr(tag, 'name') ?? '', family: local(tag.name) === 'page-layout' ? 'page-layout' : (attr(tag, 'family') ?? '') };
        break;
      case 'columns': {
        const n = count(tag, 'column-count');
        if (this.style?.family === 'section') this.sectionColumns.set(this.style.name, n);
        else if (this.style?.family === 'page-layout') this.columns.add(n, `page style ${printable(this.style.name)}`);
        else this.columns.add(n, this.style ? `style ${printable(this.style.name)}` : 'a frame');
        break;
      }
      case 'section': {
        const name = attr(tag, 'style-name');
        const n = name === undefined ? undefined : this.sectionColumns.get(name);
        if (n) this.columns.add(n, `section ${printable(attr(tag, 'name') ?? name ?? '')}`);
        break;
      }
      case 'table-row':
        this.rows.push(count(tag, 'number-rows-repeated'));
        break;
      case 'table-cell':
      case 'covered-table-cell':
        this.cell = {
          columns: count(tag, 'number-columns-repeated'),
          content: attr(tag, 'value-type') !== undefined || attr(tag, 'formula') !== undefined,
          depth: this.depth,
        };
        if (tag.isSelfClosing) this.endCell();
        break;
    }
  }

  private close(tag: SaxesTagPlain): void {
    switch (local(tag.name)) {
      case 'style':
      case 'page-layout':
        this.style = null;
        break;
      case 'table-row':
        this.rows.pop();
        break;
      case 'table-cell':
      case 'covered-table-cell':
        if (this.cell?.depth === this.depth) this.endCell();
        break;
    }
    this.depth--;
  }

  private endCell(): void {
    const cell = this.cell!;
    this.cell = null;
    const rows = this.rows.reduce((a, r) => a * r, 1);
    if (cell.content && rows * cell.columns > 1) this.repeats.add(rows, cell.columns);
  }
}
