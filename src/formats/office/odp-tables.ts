// Header rows of an OpenDocument presentation's tables. LibreOffice (7.4) drops the
// table:use-first-row-styles flag when it converts ODP to PPTX (the PPTX's a:tblPr comes out
// empty), so the flag is read from the ODP itself and laid over the converted slides' tables,
// which keep their order per slide. Spans survive the conversion (gridSpan/rowSpan/hMerge/vMerge
// from table:number-columns-spanned, number-rows-spanned and table:covered-table-cell).
// The XML is streamed (saxes), as the package guard reads it.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import type { ZipPackage } from './zip.js';

/** Per draw:page in order, per table in order: 1 when its first row is the header, else 0. */
export type OdpHeaderRows = number[][];

/** `table:use-first-row-styles` → 'use-first-row-styles', whatever the prefix. */
const local = (name: string) => name.slice(name.indexOf(':') + 1);

class HeaderScan {
  readonly pages: OdpHeaderRows = [];
  private readonly parser = new SaxesParser();
  // A chunk may end inside a multi-byte character.
  private readonly decoder = new StringDecoder('utf8');

  constructor() {
    this.parser.on('opentag', (t) => {
      const name = local(t.name);
      if (name === 'page') this.pages.push([]);
      else if (name === 'table' && this.pages.length) {
        const first = Object.entries(t.attributes).some(([k, v]) => local(k) === 'use-first-row-styles' && v === 'true');
        this.pages[this.pages.length - 1].push(first ? 1 : 0);
      }
    });
  }

  readonly write = (chunk: Buffer): void => {
    this.parser.write(this.decoder.write(chunk));
  };

  end(): OdpHeaderRows {
    this.parser.write(this.decoder.end()).close();
    return this.pages;
  }
}

/** A zipped ODP's content.xml (the package was guarded before). */
export async function odpPackageHeaderRows(zip: ZipPackage): Promise<OdpHeaderRows> {
  if (!zip.resolve('content.xml')) return [];
  const scan = new HeaderScan();
  await zip.stream('content.xml', scan.write);
  return scan.end();
}

/** A flat ODP (.fodp). */
export async function flatOdpHeaderRows(filePath: string): Promise<OdpHeaderRows> {
  const scan = new HeaderScan();
  for await (const chunk of createReadStream(filePath, { highWaterMark: 1 << 16 })) scan.write(chunk as Buffer);
  return scan.end();
}
