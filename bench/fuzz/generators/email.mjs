// Generated e-mail seeds: a multipart EML with an attachment and encoded words, a nested
// message/rfc822, an MBOX of three messages, and an MSG (OLE2 property streams).
import { buildOle } from './ole.mjs';

const CSV_B64 = Buffer.from('a,b\n1,2\n3,4\n').toString('base64');

const MULTIPART = [
  'From: =?UTF-8?B?w4lsb2RpZQ==?= <elodie@example.org>',
  'To: Team <team@example.org>, other@example.org',
  'Cc: cc@example.org',
  'Subject: =?UTF-8?Q?R=C3=A9union_=E2=80=94_notes?=',
  'Date: Tue, 05 Mar 2024 10:15:00 +0100',
  'Message-ID: <gen-1@example.org>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="outer"',
  '',
  '--outer',
  'Content-Type: multipart/alternative; boundary="alt"',
  '',
  '--alt',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Bonjour =C3=A0 tous,=0AVoici les notes.',
  '--alt',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<html><body><h1>Notes</h1><p>Voici <b>les</b> notes.</p><table><tr><td>1</td></tr></table></body></html>',
  '--alt--',
  '--outer',
  'Content-Type: text/csv; name="data.csv"',
  'Content-Disposition: attachment; filename="data.csv"',
  'Content-Transfer-Encoding: base64',
  '',
  CSV_B64,
  '--outer--',
  '',
].join('\r\n');

const NESTED = [
  'From: a@example.org',
  'To: b@example.org',
  'Subject: Fwd: inner',
  'Date: Wed, 06 Mar 2024 08:00:00 +0000',
  'Message-ID: <gen-2@example.org>',
  'In-Reply-To: <gen-1@example.org>',
  'References: <gen-0@example.org> <gen-1@example.org>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary=b1',
  '',
  '--b1',
  'Content-Type: text/plain',
  '',
  'See below.',
  '--b1',
  'Content-Type: message/rfc822',
  '',
  'From: c@example.org',
  'Subject: inner',
  'Content-Type: text/plain; charset=iso-8859-1',
  'Content-Transfer-Encoding: 8bit',
  '',
  'Inner body.',
  '--b1--',
  '',
].join('\n');

function mbox() {
  const msg = (i, body) =>
    [
      `From sender${i}@example.org Mon Jan  1 10:0${i}:00 2024`,
      `From: sender${i}@example.org`,
      'To: me@example.org',
      `Subject: message ${i}`,
      `Date: Mon, 01 Jan 2024 10:0${i}:00 +0000`,
      `Message-ID: <mbox-${i}@example.org>`,
      '',
      body,
      '',
    ].join('\n');
  return msg(1, 'First.\n>From the start, escaped.') + msg(2, 'Second.') + msg(3, 'Third\nwith two lines.');
}

/** A property stream entry for a variable-length property (size) or a 4-byte value. */
function prop(tag, value) {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(tag >>> 0, 0);
  b.writeUInt32LE(6, 4); // readable | writable
  b.writeUInt32LE(value >>> 0, 8);
  return b;
}

const u16 = (s) => Buffer.from(s, 'utf16le');

function msg() {
  const subject = u16('Generated MSG subject');
  const body = u16('Body line.\r\n'.repeat(500)); // > 4096 bytes: a FAT chain, not the mini stream
  const cls = u16('IPM.Note');
  const sender = u16('Gen Sender');
  const senderEmail = u16('gen@example.org');
  const top = Buffer.concat([
    Buffer.alloc(8),
    Buffer.from([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
    Buffer.alloc(8),
    prop(0x001a001f, cls.length),
    prop(0x0037001f, subject.length),
    prop(0x1000001f, body.length),
    prop(0x0c1a001f, sender.length),
    prop(0x0c1f001f, senderEmail.length),
  ]);
  const recipName = u16('Gen Recipient');
  const recipEmail = u16('to@example.org');
  const recip = Buffer.concat([Buffer.alloc(8), prop(0x3001001f, recipName.length), prop(0x3003001f, recipEmail.length), prop(0x0c150003, 1)]);
  const attName = u16('note.txt');
  const attData = Buffer.from('attached text\n');
  const att = Buffer.concat([Buffer.alloc(8), prop(0x3707001f, attName.length), prop(0x37010102, attData.length), prop(0x37050003, 1)]);
  return buildOle({
    '/__properties_version1.0': top,
    '/__substg1.0_001A001F': cls,
    '/__substg1.0_0037001F': subject,
    '/__substg1.0_1000001F': body,
    '/__substg1.0_0C1A001F': sender,
    '/__substg1.0_0C1F001F': senderEmail,
    '/__recip_version1.0_#00000000/__properties_version1.0': recip,
    '/__recip_version1.0_#00000000/__substg1.0_3001001F': recipName,
    '/__recip_version1.0_#00000000/__substg1.0_3003001F': recipEmail,
    '/__attach_version1.0_#00000000/__properties_version1.0': att,
    '/__attach_version1.0_#00000000/__substg1.0_3707001F': attName,
    '/__attach_version1.0_#00000000/__substg1.0_37010102': attData,
  });
}

export function emailSeeds() {
  return [
    { name: 'gen_multipart.eml', bytes: Buffer.from(MULTIPART, 'utf8') },
    { name: 'gen_nested.eml', bytes: Buffer.from(NESTED, 'latin1') },
    { name: 'gen_three.mbox', bytes: Buffer.from(mbox(), 'utf8') },
    { name: 'gen_note.msg', bytes: msg() },
  ];
}
