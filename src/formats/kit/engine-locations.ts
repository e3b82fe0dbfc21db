// Where the engines that come from the operating system live on this machine: LibreOffice's
// soffice and Tesseract's trained models. One answer for the loaders that use them and for
// the node's engine inventory. The locations an operator chose (DOCPARSE_SOFFICE,
// DOCPARSE_TESSDATA_DIR, TESSDATA_PREFIX, PATH) are read by config.ts and passed in; the file
// checks run on every call (they are cheap), so what is installed meanwhile is found.
import fs from 'node:fs';
import path from 'node:path';
import type { EngineLocations } from '../settings.js';

/** Where Debian and LibreOffice's own packages put soffice. */
const SOFFICE_LOCATIONS = ['/usr/bin/soffice', '/usr/lib/libreoffice/program/soffice', '/opt/libreoffice/program/soffice'];

/** Where Debian's tesseract-ocr-* packages put the models. */
const TESSDATA_LOCATIONS = ['/usr/share/tesseract-ocr/5/tessdata', '/usr/share/tesseract-ocr/4.00/tessdata', '/usr/share/tessdata'];

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Paths tried for soffice, in order. DOCPARSE_SOFFICE, when set, is the only one: an operator
 * who names a binary gets that binary or none (set it to a path that does not exist, e.g.
 * /nonexistent, to run a node without LibreOffice), never a different one found elsewhere.
 */
export function sofficeCandidates(locations: EngineLocations): string[] {
  if (locations.soffice) return [locations.soffice];
  const onPath = locations.searchPath.map((d) => path.join(d, 'soffice'));
  return [...new Set([...SOFFICE_LOCATIONS, ...onPath])];
}

/** The soffice binary this node runs, or null when LibreOffice is not installed. */
export function sofficePath(locations: EngineLocations): string | null {
  return sofficeCandidates(locations).find(isExecutableFile) ?? null;
}

/**
 * Folders searched for trained models, in order. DOCPARSE_TESSDATA_DIR, when set, is the
 * only one (as DOCPARSE_SOFFICE is for soffice); otherwise TESSDATA_PREFIX, then Debian's.
 */
export function tessdataCandidates(locations: EngineLocations): string[] {
  if (locations.tessdataDir) return [locations.tessdataDir];
  return locations.tessdataPrefix ? [locations.tessdataPrefix, ...TESSDATA_LOCATIONS] : TESSDATA_LOCATIONS;
}

/** Path of `<lang>.traineddata`, or null when that model is not installed. */
export function tesseractModelPath(locations: EngineLocations, lang = 'eng'): string | null {
  for (const dir of tessdataCandidates(locations)) {
    const p = path.join(dir, `${lang}.traineddata`);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

/**
 * The models folder the engine would use (the one holding the English model, else the first
 * that exists) and the languages in it, e.g. { dir, languages: ['eng', 'osd'] }.
 */
export function tesseractModels(locations: EngineLocations): { dir: string | null; languages: string[] } {
  const eng = tesseractModelPath(locations, 'eng');
  const dir = eng ? path.dirname(eng) : (tessdataCandidates(locations).find((d) => fs.existsSync(d)) ?? null);
  if (!dir) return { dir: null, languages: [] };
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    /* unreadable: no languages */
  }
  const languages = names
    .filter((n) => n.endsWith('.traineddata'))
    .map((n) => n.slice(0, -'.traineddata'.length))
    .sort();
  return { dir, languages };
}
