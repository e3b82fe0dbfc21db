// Generated seeds whose failure reasons and warnings once leaked a library's internals (issue
// 27, item 7): an MSG whose attachment lost its data and name streams (edited directory
// sector), a spatial CSV whose header has 100,002 columns, a DXF with control bytes where a
// group code belongs, and a KML GDAL does not recognise. The tests of those reasons build
// their inputs here too.
import { emailSeeds } from './email.mjs';
import { gisSeeds } from './gis.mjs';

/** Renames one directory entry of an OLE2 file in place (names are UTF-16LE, same length). */
function renameOleEntry(bytes, from, to) {
  const at = bytes.indexOf(Buffer.from(from, 'utf16le'));
  if (at < 0 || from.length !== to.length) throw new Error(`no directory entry ${from}`);
  Buffer.from(to, 'utf16le').copy(bytes, at);
}

/**
 * The generated MSG (gen_note.msg) with its attachment's directory entries edited: the data
 * stream (PR_ATTACH_DATA_BIN, 3701) and the file name (PR_ATTACH_LONG_FILENAME, 3707) renamed
 * to properties nobody reads. The container stays sound; msgreader then fails on the
 * attachment with a TypeError of its own.
 */
export function msgWithUnreadableAttachment() {
  const msg = Buffer.from(emailSeeds().find((s) => s.name === 'gen_note.msg').bytes);
  renameOleEntry(msg, '__substg1.0_37010102', '__substg1.0_3FFE0102');
  renameOleEntry(msg, '__substg1.0_3707001F', '__substg1.0_3FFF001F');
  return msg;
}

/** A spatial CSV whose header (lat, lon, then c0 …) is wider than the dialect sample (~890 KB). */
export function spatialCsvWideHeader(columns = 100_002) {
  const names = ['lat', 'lon', ...Array.from({ length: columns - 2 }, (_, i) => `c${i}`)];
  const row = (lat, lon) => [lat, lon, ...Array.from({ length: columns - 2 }, () => '')].join(',');
  return Buffer.from(`${names.join(',')}\n${row(48.8566, 2.3522)}\n${row(45.764, 4.8357)}\n`, 'utf8');
}

/** A DXF whose second group code line holds binary bytes (control characters) before text. */
export function dxfWithControlBytes() {
  return Buffer.concat([Buffer.from('0\nSECTION\n'), Buffer.from([0x00, 0x01, 0x02, 0x1b, 0x7f]), Buffer.from('2\nENTITIES\n0\nENDSEC\n0\nEOF\n')]);
}

/** The generated KML with its root element damaged: GDAL recognises no format in it. */
export function unrecognisedKml() {
  const kml = gisSeeds()
    .find((s) => s.name === 'gen_places.kml')
    .bytes.toString('utf8');
  return Buffer.from(kml.replace(/<kml\b/, '<kmx').replace(/<\/kml>/, '</kmx>'), 'utf8');
}

/** {family: [{name, bytes, ...routing hints}]}: these seeds by family. */
export function messageSeeds() {
  return {
    email: [{ name: 'gen_attachment_unreadable.msg', bytes: msgWithUnreadableAttachment() }],
    csv: [{ name: 'gen_wide_header_lonlat.csv', bytes: spatialCsvWideHeader() }],
    cad: [{ name: 'gen_control_bytes.dxf', bytes: dxfWithControlBytes() }],
    gis: [{ name: 'gen_unrecognised.kml', bytes: unrecognisedKml() }],
  };
}
