export const CORPUS_DIR: string;
export const CORPUS_AVAILABLE: boolean;
export function corpusDir(family: string): string;
