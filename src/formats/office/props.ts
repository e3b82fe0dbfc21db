// Document properties: OOXML docProps/core.xml + app.xml, OpenDocument meta.xml.
import { unreadableBecause } from '../kit/reasons.js';
import type { OfficePropertiesT } from './schema.js';
import type { ZipPackage } from './zip.js';
import { allText, attr, kids, parseXml, root, tag } from './xml.js';

const XML_LIMIT = 8 * 1024 * 1024;

function iso(s: string): string {
  const d = new Date(s.trim());
  return Number.isNaN(d.getTime()) ? s.trim() : d.toISOString();
}

function int(s: string): number | undefined {
  const n = Number.parseInt(s.trim(), 10);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export async function ooxmlProperties(zip: ZipPackage, warnings: string[]): Promise<OfficePropertiesT> {
  const p: OfficePropertiesT = {};
  try {
    const core = await zip.readTextIfPresent('docProps/core.xml', XML_LIMIT);
    const r = core ? root(parseXml(core, 'docProps/core.xml')) : undefined;
    if (r) {
      for (const k of kids(r)) {
        const v = allText(k).trim();
        if (!v) continue;
        switch (tag(k)) {
          case 'title':
            p.title = v;
            break;
          case 'subject':
            p.subject = v;
            break;
          case 'creator':
            p.creator = v;
            break;
          case 'keywords':
            p.keywords = v;
            break;
          case 'description':
            p.description = v;
            break;
          case 'lastModifiedBy':
            p.lastModifiedBy = v;
            break;
          case 'category':
            p.category = v;
            break;
          case 'created':
            p.created = iso(v);
            break;
          case 'modified':
            p.modified = iso(v);
            break;
        }
      }
    }
    const app = await zip.readTextIfPresent('docProps/app.xml', XML_LIMIT);
    const a = app ? root(parseXml(app, 'docProps/app.xml')) : undefined;
    if (a) {
      for (const k of kids(a)) {
        const v = allText(k).trim();
        if (!v) continue;
        switch (tag(k)) {
          case 'Application':
            p.application = v;
            break;
          case 'AppVersion':
            p.application = p.application ? `${p.application} ${v}` : v;
            break;
          case 'Company':
            p.company = v;
            break;
          case 'Template':
            p.template = v;
            break;
          case 'Pages':
            p.pages = int(v);
            break;
          case 'Words':
            p.words = int(v);
            break;
          case 'Characters':
            p.characters = int(v);
            break;
        }
      }
    }
  } catch (err) {
    warnings.push(`document properties unreadable: ${unreadableBecause(err, 'the properties part is damaged')}`);
  }
  for (const k of Object.keys(p) as (keyof OfficePropertiesT)[]) if (p[k] === undefined) delete p[k];
  return p;
}

export async function odfProperties(zip: ZipPackage, warnings: string[]): Promise<OfficePropertiesT> {
  const p: OfficePropertiesT = {};
  try {
    const meta = await zip.readTextIfPresent('meta.xml', XML_LIMIT);
    if (!meta) return p;
    const r = root(parseXml(meta, 'meta.xml'));
    const m = r ? kids(r).find((k) => tag(k) === 'meta') : undefined;
    if (!m) return p;
    for (const k of kids(m)) {
      const v = allText(k).trim();
      switch (tag(k)) {
        case 'title':
          if (v) p.title = v;
          break;
        case 'subject':
          if (v) p.subject = v;
          break;
        case 'initial-creator':
          if (v) p.creator = v;
          break;
        case 'creator':
          if (v) p.lastModifiedBy = v;
          break;
        case 'keyword':
          if (v) p.keywords = p.keywords ? `${p.keywords}, ${v}` : v;
          break;
        case 'description':
          if (v) p.description = v;
          break;
        case 'creation-date':
          if (v) p.created = iso(v);
          break;
        case 'date':
          if (v) p.modified = iso(v);
          break;
        case 'generator':
          if (v) p.application = v;
          break;
        case 'template': {
          const t = attr(k, 'title') ?? attr(k, 'href');
          if (t) p.template = t;
          break;
        }
        case 'document-statistic': {
          const pc = attr(k, 'page-count');
          const wc = attr(k, 'word-count');
          const cc = attr(k, 'character-count');
          if (pc) p.pages = int(pc);
          if (wc) p.words = int(wc);
          if (cc) p.characters = int(cc);
          break;
        }
      }
    }
  } catch (err) {
    warnings.push(`document properties unreadable: ${unreadableBecause(err, 'the properties part is damaged')}`);
  }
  for (const k of Object.keys(p) as (keyof OfficePropertiesT)[]) if (p[k] === undefined) delete p[k];
  return p;
}
