// Generated CAD seeds: DXF drawings as (group code, value) pairs, written as ASCII (R12 and
// R2000 with tables, blocks, INSERT, MTEXT, LWPOLYLINE, DIMENSION, HATCH) and as binary DXF.

function header(version) {
  return [
    [0, 'SECTION'],
    [2, 'HEADER'],
    [9, '$ACADVER'],
    [1, version],
    [9, '$INSUNITS'],
    [70, 4],
    [9, '$EXTMIN'],
    [10, 0],
    [20, 0],
    [30, 0],
    [9, '$EXTMAX'],
    [10, 100],
    [20, 100],
    [30, 0],
    [0, 'ENDSEC'],
  ];
}

function tables() {
  const layer = (name, color) => [
    [0, 'LAYER'],
    [2, name],
    [70, 0],
    [62, color],
    [6, 'CONTINUOUS'],
  ];
  return [
    [0, 'SECTION'],
    [2, 'TABLES'],
    [0, 'TABLE'],
    [2, 'LAYER'],
    [70, 3],
    ...layer('0', 7),
    ...layer('WALLS', 1),
    ...layer('TEXT', -3),
    [0, 'ENDTAB'],
    [0, 'ENDSEC'],
  ];
}

function blocks() {
  return [
    [0, 'SECTION'],
    [2, 'BLOCKS'],
    [0, 'BLOCK'],
    [8, '0'],
    [2, 'DOOR'],
    [70, 0],
    [10, 0],
    [20, 0],
    [30, 0],
    [0, 'LINE'],
    [8, '0'],
    [10, 0],
    [20, 0],
    [30, 0],
    [11, 1],
    [21, 0],
    [31, 0],
    [0, 'ARC'],
    [8, '0'],
    [10, 0],
    [20, 0],
    [30, 0],
    [40, 1],
    [50, 0],
    [51, 90],
    [0, 'ATTDEF'],
    [8, '0'],
    [10, 0],
    [20, 1],
    [30, 0],
    [40, 0.2],
    [1, 'D1'],
    [3, 'Door id'],
    [2, 'ID'],
    [70, 0],
    [0, 'ENDBLK'],
    [0, 'ENDSEC'],
  ];
}

function entities(modern) {
  const e = [
    [0, 'SECTION'],
    [2, 'ENTITIES'],
    [0, 'LINE'],
    [8, 'WALLS'],
    [10, 0],
    [20, 0],
    [30, 0],
    [11, 100],
    [21, 0],
    [31, 0],
    [0, 'CIRCLE'],
    [8, 'WALLS'],
    [10, 50],
    [20, 50],
    [30, 0],
    [40, 10],
    [0, 'TEXT'],
    [8, 'TEXT'],
    [10, 10],
    [20, 90],
    [30, 0],
    [40, 2.5],
    [1, 'Plan — niveau 0'],
    [0, 'INSERT'],
    [8, '0'],
    [2, 'DOOR'],
    [10, 20],
    [20, 0],
    [30, 0],
    [41, 1],
    [42, 1],
    [50, 0],
    [66, 1],
    [0, 'ATTRIB'],
    [8, '0'],
    [10, 20],
    [20, 1],
    [30, 0],
    [40, 0.2],
    [1, 'D-001'],
    [2, 'ID'],
    [70, 0],
    [0, 'SEQEND'],
    [8, '0'],
  ];
  if (modern) {
    e.push(
      [0, 'LWPOLYLINE'],
      [100, 'AcDbEntity'],
      [8, 'WALLS'],
      [100, 'AcDbPolyline'],
      [90, 4],
      [70, 1],
      [10, 0],
      [20, 0],
      [10, 10],
      [20, 0],
      [42, 0.5],
      [10, 10],
      [20, 10],
      [10, 0],
      [20, 10],
      [0, 'MTEXT'],
      [100, 'AcDbEntity'],
      [8, 'TEXT'],
      [100, 'AcDbMText'],
      [10, 30],
      [20, 30],
      [30, 0],
      [40, 2],
      [41, 40],
      [1, '\\P{\\fArial|b1;Bold} line\\Psecond'],
      [0, 'DIMENSION'],
      [100, 'AcDbEntity'],
      [8, '0'],
      [100, 'AcDbDimension'],
      [2, '*D1'],
      [10, 0],
      [20, -5],
      [30, 0],
      [11, 50],
      [21, -5],
      [31, 0],
      [70, 32],
      [1, ''],
      [42, 100],
      [100, 'AcDbAlignedDimension'],
      [13, 0],
      [23, 0],
      [33, 0],
      [14, 100],
      [24, 0],
      [34, 0],
      [0, 'HATCH'],
      [100, 'AcDbEntity'],
      [8, 'WALLS'],
      [100, 'AcDbHatch'],
      [10, 0],
      [20, 0],
      [30, 0],
      [210, 0],
      [220, 0],
      [230, 1],
      [2, 'SOLID'],
      [70, 1],
      [71, 0],
      [91, 1],
      [92, 2],
      [72, 0],
      [73, 1],
      [93, 4],
      [10, 0],
      [20, 0],
      [10, 5],
      [20, 0],
      [10, 5],
      [20, 5],
      [10, 0],
      [20, 5],
      [97, 0],
      [75, 0],
      [76, 1],
      [98, 0],
    );
  }
  e.push([0, 'ENDSEC']);
  return e;
}

function drawing(modern) {
  return [...header(modern ? 'AC1015' : 'AC1009'), ...tables(), ...blocks(), ...entities(modern), [0, 'EOF']];
}

function ascii(pairs) {
  return Buffer.from(
    pairs.map(([c, v]) => `${String(c).padStart(3)}\r\n${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(6) : v}\r\n`).join(''),
    'utf8',
  );
}

/** Value kind of a group code, per the DXF reference's ranges. */
function kind(code) {
  if ((code >= 10 && code <= 59) || (code >= 110 && code <= 149) || (code >= 210 && code <= 239) || (code >= 1010 && code <= 1059)) return 'double';
  if (
    (code >= 60 && code <= 79) ||
    (code >= 170 && code <= 179) ||
    (code >= 270 && code <= 289) ||
    (code >= 370 && code <= 389) ||
    (code >= 400 && code <= 409) ||
    (code >= 1060 && code <= 1070)
  )
    return 'int16';
  if ((code >= 90 && code <= 99) || (code >= 420 && code <= 429) || (code >= 440 && code <= 449) || code === 1071) return 'int32';
  if (code >= 290 && code <= 299) return 'bool';
  return 'string';
}

function binary(pairs) {
  const out = [Buffer.from('AutoCAD Binary DXF\r\n\x1a\0', 'latin1')];
  for (const [code, value] of pairs) {
    const c = Buffer.alloc(2);
    c.writeUInt16LE(code);
    out.push(c);
    const k = kind(code);
    if (k === 'double') {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(Number(value));
      out.push(b);
    } else if (k === 'int16') {
      const b = Buffer.alloc(2);
      b.writeInt16LE(Number(value));
      out.push(b);
    } else if (k === 'int32') {
      const b = Buffer.alloc(4);
      b.writeInt32LE(Number(value));
      out.push(b);
    } else if (k === 'bool') out.push(Buffer.from([value ? 1 : 0]));
    else out.push(Buffer.from(`${value}\0`, 'utf8'));
  }
  return Buffer.concat(out);
}

export function cadSeeds() {
  return [
    { name: 'gen_r12.dxf', bytes: ascii(drawing(false)) },
    { name: 'gen_r2000.dxf', bytes: ascii(drawing(true)) },
    { name: 'gen_binary.dxf', bytes: binary(drawing(true)) },
  ];
}
