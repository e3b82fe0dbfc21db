// Typings for tesseract-wasm 0.11 (its package.json has no "types" entry).
declare module 'tesseract-wasm' {
  export type IntRect = { left: number; top: number; right: number; bottom: number };
  export type TextItem = { rect: IntRect; flags: number; confidence: number; text: string };
  export const layoutFlags: { StartOfLine: number; EndOfLine: number };
  export interface OCREngine {
    loadModel(model: Uint8Array | ArrayBuffer): void;
    loadImage(image: { data: Uint8ClampedArray | Uint8Array; width: number; height: number }): void;
    clearImage(): void;
    setVariable(name: string, value: string): void;
    getTextBoxes(unit: 'line' | 'word', onProgress?: (p: number) => void): TextItem[];
    getText(onProgress?: (p: number) => void): string;
    destroy(): void;
  }
  export function createOCREngine(opts?: { wasmBinary?: Uint8Array | ArrayBuffer }): Promise<OCREngine>;
  export function supportsFastBuild(): boolean;
}
