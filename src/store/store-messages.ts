/** What replicas sharing serve.store keep there and tell one another (store/shared-store.ts carries them, signed). */

/** A task as the replicas share it: its owner, the replica holding it, and what tasks/get answers. */
export interface SharedTaskRecord {
  owner: string;
  holder: string;
  /** The DetailedTask as tasks/get answers it (its status among it). */
  task: Record<string, unknown>;
}

/** What one replica tells the one holding a task. */
export type TaskMessage =
  | { kind: 'cancel'; id: string; owner: string }
  | { kind: 'update'; id: string; owner: string; inputResponses: Record<string, unknown> };

/**
 * A call one replica passes to another (a bridged question's retry, which only the replica that
 * parked the call can go on with), and the answer sent back. `caller` is who the first replica let in.
 */
export type CallMessage =
  | {
      kind: 'call';
      id: string;
      holder: string;
      from: string;
      path: string;
      body: Record<string, unknown>;
      headers: Record<string, string>;
      caller: { id: string; via: string; client?: string };
    }
  | { kind: 'reply'; id: string; to: string; outcome: { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } } };

/** Everything the replicas tell one another on the store's channel. */
export type StoreMessage = TaskMessage | CallMessage;

const KINDS = new Set(['cancel', 'update', 'call', 'reply']);

/** Whether a signed body has the shape of a message of its purpose (signed by a replica, but of another version, perhaps). Pure. */
export function isStoreMessage(body: unknown, purpose: string): body is StoreMessage {
  const kind = (body as { kind?: unknown } | null)?.kind;
  return typeof body === 'object' && body !== null && typeof kind === 'string' && KINDS.has(kind) && kind === purpose;
}
