export declare const BEGIN_MARKER: string;
export declare const END_MARKER: string;
export declare function configTableLines(docs: { name: string; default: string; description: string }[]): string[];
export declare function tableSpan(page: string): { lines: string[]; begin: number; end: number; table: string[] };
export declare function withTable(page: string, tableLines: string[]): string;
