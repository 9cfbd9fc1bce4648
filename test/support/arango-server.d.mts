// Types of the ArangoDB test server (arango-server.mjs).
export interface ArangoControl {
  failNext(failure: { status: number; errorNum?: number; message?: string; times?: number }): void;
  dropNext: number;
  delayMs: number;
  requests: { method: string; path: string }[];
}
export declare function startArango(options?: {
  databases?: string[];
  username?: string;
  password?: string;
  port?: number;
  closeConnections?: boolean;
}): Promise<{
  readonly url: string;
  control: ArangoControl;
  store(name?: string): unknown;
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}>;
