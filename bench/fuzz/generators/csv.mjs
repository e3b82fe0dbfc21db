// Generated CSV seeds: typed tabular data, lon/lat and WKT spatial files, and the encodings
// and delimiters the dialect detector has to tell apart.
import { Rng } from '../prng.mjs';

function tabular() {
  const r = new Rng(101);
  const lines = ['id,name,price,active,day,seen_at,big,notes'];
  for (let i = 1; i <= 60; i++) {
    const name = r.pick(['Zoë', "O'Brien", 'Ł. Wójcik', '"Quoted" Name', 'plain', '日本語', '']);
    const notes = r.chance(0.2) ? '"line one\nline two, with comma"' : r.chance(0.2) ? '' : `note ${i}`;
    const q = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    lines.push(
      [
        i,
        q(name),
        (r.next() * 1000).toFixed(r.int(4)),
        r.pick(['true', 'false', 'TRUE', '']),
        `2024-0${1 + r.int(9)}-1${r.int(10)}`,
        `2024-03-0${1 + r.int(9)}T12:${10 + r.int(50)}:00Z`,
        r.chance(0.1) ? '9007199254740993' : String(r.int(1e9)),
        notes,
      ].join(','),
    );
  }
  return lines.join('\n') + '\n';
}

function lonLat() {
  const rows = [
    'city;latitude;longitude;population',
    'Paris;48.8566;2.3522;2102650',
    'Lyon;45.764;4.8357;522250',
    'Québec;46.8139;-71.2080;549459',
    'Sydney;-33.8688;151.2093;5312163',
    'Null Island;0;0;0',
  ];
  return rows.join('\r\n') + '\r\n';
}

function wkt() {
  return (
    [
      'id,wkt,label',
      '1,"POINT (2.35 48.85)",point',
      '2,"LINESTRING (0 0, 1 1, 2 0)",line',
      '3,"POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))",holed',
      '4,"MULTIPOINT ((1 2), (3 4))",multi',
      '5,"CIRCULARSTRING (0 0, 1 1, 2 0)",curve',
      '6,"GEOMETRYCOLLECTION (POINT (1 1), LINESTRING (0 0, 1 1))",collection',
      '7,"POINT EMPTY",empty',
    ].join('\n') + '\n'
  );
}

function utf16Tabs() {
  const text = 'name\tcount\tratio\nα\t1\t0.5\nβ\t2\t0.25\nγ\t3\t\n';
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

function latin1Pipes() {
  return Buffer.from('nom|ville|montant\nRené|Besançon|12,50\nJosé|Málaga|7\nÅsa|Göteborg|"3|4"\n', 'latin1');
}

export function csvSeeds() {
  return [
    { name: 'gen_tabular.csv', bytes: Buffer.from(tabular(), 'utf8') },
    { name: 'gen_lonlat.csv', bytes: Buffer.from(lonLat(), 'utf8') },
    { name: 'gen_wkt.csv', bytes: Buffer.from(wkt(), 'utf8') },
    { name: 'gen_utf16_tabs.tsv', bytes: utf16Tabs() },
    { name: 'gen_latin1_pipes.csv', bytes: latin1Pipes() },
  ];
}
