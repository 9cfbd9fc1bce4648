import type { Logger } from '../../core/logger.js';
import type { SharedStore, SharedTaskRecord, StoreMessage, TaskMessage } from '../../store/shared-store.js';
import { detailedTask, isTerminal, type HostedTask, type TaskStatus, type TaskStore } from './task-store.js';

/**
 * The host's tasks as replicas sharing serve.store see them. The replica that runs a task keeps it
 * (its call, its abort, its next round) and writes its record to the store on every change, the
 * first write before the CreateTaskResult goes out; any other replica answers tasks/get from the
 * record, and passes tasks/cancel and tasks/update to the holder over the store's channel. A
 * record whose holder's lease lapsed (the replica died) is failed, with the reason, by whichever
 * replica reads it first. Records and messages are signed with serve.store.key (store/): a record
 * or a cancel that a replica did not sign is dropped, so the store alone cannot own or end a task.
 */
export class TaskSharing {
  constructor(
    private readonly store: SharedStore,
    private readonly tasks: TaskStore,
    private readonly logger: Logger,
  ) {
    tasks.changed = (task) => void this.save(task).catch((error: Error) => logger.warn(`serve.store: task ${task.id} not shared: ${error.message}`));
  }

  /** Starts hearing what other replicas ask of this one's tasks. */
  async start(): Promise<void> {
    await this.store.hearTasks((message) => this.heard(message));
  }

  /** The task's record, written: awaited before the task is announced to its client. */
  save(task: HostedTask): Promise<void> {
    const record: SharedTaskRecord = { owner: task.owner, holder: this.store.holder, task: detailedTask(task) };
    return this.store.saveTask(task.id, record, Math.max(1, task.createdAt + task.ttlMs - Date.now()));
  }

  /**
   * Another replica's task of this owner, as tasks/get answers it; undefined when the store has none
   * of the owner's. A running task whose replica is gone is failed now, and said so.
   */
  async recordOf(id: string, owner: string): Promise<Record<string, unknown> | undefined> {
    const record = await this.store.loadTask(id);
    if (!record || record.owner !== owner) return undefined;
    const status = record.task.status as TaskStatus;
    if (isTerminal(status) || (await this.store.holderAlive(record.holder))) return record.task;
    const failed = {
      ...record.task,
      status: 'failed',
      statusMessage: 'The replica running it stopped.',
      lastUpdatedAt: new Date().toISOString(),
      error: {
        code: -32603,
        message: 'The serve --http replica running this task stopped before it ended (its lease in serve.store lapsed). Run the call again.',
      },
    };
    delete (failed as { inputRequests?: unknown }).inputRequests;
    const ttl = Date.parse(String(record.task.createdAt)) + Number(record.task.ttlMs) - Date.now();
    await this.store.saveTask(id, { ...record, task: failed }, Math.max(1000, ttl));
    return failed;
  }

  /** Passes a cancel or answers to the replica holding the task. */
  tell(message: TaskMessage): Promise<void> {
    return this.store.tellTask(message);
  }

  private heard(message: StoreMessage): void {
    if (message.kind !== 'cancel' && message.kind !== 'update') return;
    const task = this.tasks.get(message.id, message.owner);
    if (!task?.remote) return; // not this replica's, or ended
    this.logger.debug(`serve.store: ${message.kind} of task ${message.id} from another replica`);
    if (message.kind === 'cancel') task.remote.cancel();
    else task.remote.update(message.inputResponses);
  }
}
