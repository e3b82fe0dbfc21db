// A real SMTP server on 127.0.0.1 for the mail tests (the smtp-server package): accepts any
// login, keeps every message it accepted, and can be stopped and started again on the same
// port (an outage). STARTTLS is offered only when asked for (with its built-in test cert).
import { createServer as createNetServer } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeTo: string[];
  user: string | null;
  /** Whether the session had been upgraded to TLS (STARTTLS) when the message came. */
  secure: boolean;
  parsed: ParsedMail;
}

export interface SmtpSink {
  port: number;
  /** smtp://user:secret@127.0.0.1:PORT (…?tls.rejectUnauthorized=false with STARTTLS). */
  url: string;
  password: string;
  received: ReceivedMail[];
  running(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

export async function createSmtpSink(opts: { starttls?: boolean } = {}): Promise<SmtpSink> {
  const port = await freePort();
  const password = 'sink-p@ss:w0rd';
  const received: ReceivedMail[] = [];
  let server: SMTPServer | null = null;
  const url = `smtp://sender:${encodeURIComponent(password)}@127.0.0.1:${port}${opts.starttls ? '?tls.rejectUnauthorized=false' : ''}`;

  return {
    port,
    url,
    password,
    received,
    running: () => server !== null,
    async start() {
      if (server) return;
      const s = new SMTPServer({
        logger: false,
        authOptional: true,
        allowInsecureAuth: true,
        ...(opts.starttls ? {} : { disabledCommands: ['STARTTLS'] }),
        onAuth(auth, _session, cb) {
          cb(null, { user: auth.username });
        },
        onData(stream, session, cb) {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            simpleParser(Buffer.concat(chunks)).then(
              (parsed) => {
                received.push({
                  envelopeTo: session.envelope.rcptTo.map((r) => r.address),
                  user: (session.user as string | undefined) ?? null,
                  secure: session.secure,
                  parsed,
                });
                cb();
              },
              (err: Error) => cb(err),
            );
          });
        },
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      s.on('error', () => {});
      server = s;
    },
    async stop() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((r) => s.close(() => r()));
    },
  };
}
