// The "parse a document found inside this one" capability handed to parsers (an e-mail's
// attachments): detection on the embedded file's first bytes and name, and the family's own
// parser when that family says its text is extracted there (textInAttachments). Built here,
// from the registry, so that no parser has to import the registry that lists it.
import { detectFormat } from '../formats/detect.js';
import { familyOf } from '../formats/registry.js';
import type { EmbeddedParsers, FormatParser } from '../formats/kit/types.js';

export function embeddedParsers(parserFor: (format: string) => Promise<FormatParser>): EmbeddedParsers {
  return (head, fileName) => {
    let format: string;
    try {
      format = detectFormat(head, fileName ?? undefined, undefined).format;
    } catch {
      return null; // not recognisable on its own: kept as an attachment without text
    }
    if (!familyOf(format)?.textInAttachments) return null;
    return { format, load: () => parserFor(format) };
  };
}
