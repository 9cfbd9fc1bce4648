// Types of the test server's AQL evaluator (aql.mjs).
export declare class AqlError extends Error {
  errorNum: number;
  code: number;
}
export declare function execute(query: string, bindVars: Record<string, unknown>, db: unknown): { result: unknown[]; stats: Record<string, number> };
export declare function parse(query: string): unknown;
