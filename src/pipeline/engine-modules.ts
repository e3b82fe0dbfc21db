// Compiled WebAssembly engines, shared by the parsing process with its threads. Nothing is
// compiled at start: the first thread that needs PDFium or Tesseract asks the process's main
// thread over a BroadcastChannel, which compiles the module once (a node that never parses a
// PDF never holds its code) and answers every thread that asks with the same module (threads
// instantiate it, far cheaper than compiling it each).
import { BroadcastChannel } from 'node:worker_threads';

const ENGINES_CHANNEL = 'docparse-engine-modules';

type EngineMessage = { op: 'ask'; name: string; reqId: string } | { op: 'module'; reqId: string; module?: WebAssembly.Module; error?: string };

/** The engines the process can compile, by name. */
const COMPILERS: Record<string, (optimizedPdfium: boolean) => Promise<object>> = {
  pdfium: async (optimized) => (await import('../formats/pdf/pdfium-loader.js')).compilePdfiumModule(optimized),
  tesseract: async () => (await import('../formats/pdf/tesseract-loader.js')).compileTesseractModule(),
};

/** The parsing process's side: compiles each engine on first demand and answers the threads. Returns a closer. */
export function serveEngineModules(optimizedPdfium: boolean): () => void {
  const compiled = new Map<string, Promise<object>>();
  const channel = new BroadcastChannel(ENGINES_CHANNEL);
  channel.onmessage = (event) => {
    const m = (event as { data: EngineMessage }).data;
    if (m.op !== 'ask') return;
    const compile = COMPILERS[m.name];
    if (!compile) {
      channel.postMessage({ op: 'module', reqId: m.reqId, error: `no engine named ${m.name}` } satisfies EngineMessage);
      return;
    }
    let module = compiled.get(m.name);
    if (!module) {
      module = compile(optimizedPdfium);
      compiled.set(m.name, module);
      module.catch(() => compiled.delete(m.name));
    }
    module.then(
      (mod) => channel.postMessage({ op: 'module', reqId: m.reqId, module: mod as WebAssembly.Module } satisfies EngineMessage),
      (err: Error) => channel.postMessage({ op: 'module', reqId: m.reqId, error: err.message } satisfies EngineMessage),
    );
  };
  return () => channel.close();
}

let seq = 0;

/** A thread's side: asks the process for an engine's module (undefined: the thread compiles its own). */
export function askProcessForModule(threadId: number): (name: string) => Promise<WebAssembly.Module | undefined> {
  return (name) =>
    new Promise((resolve) => {
      const reqId = `${threadId}-${++seq}`;
      const channel = new BroadcastChannel(ENGINES_CHANNEL);
      channel.onmessage = (event) => {
        const m = (event as { data: EngineMessage }).data;
        if (m.op !== 'module' || m.reqId !== reqId) return;
        channel.close();
        resolve(m.module);
      };
      channel.postMessage({ op: 'ask', name, reqId } satisfies EngineMessage);
    });
}
