import { describe, expect, it } from 'vitest';
import { DaemonTasks, MAX_KEPT, taskAnswer } from '../../src/daemon/server/tasks.js';

const never = () => new Promise<unknown>(() => {});

describe('DaemonTasks', () => {
  it('a task runs in the background, keeps its last progress, and ends completed or failed; settled is told once', async () => {
    const tasks = new DaemonTasks();
    let settled = 0;
    let finish!: (value: unknown) => void;
    const task = tasks.start(
      'echo',
      (_signal, progress) => {
        progress({ progress: 1, total: 2, message: 'half' });
        return new Promise((resolve) => (finish = resolve));
      },
      () => settled++,
    );
    expect(tasks.get(task.task_id)).toMatchObject({ status: 'working', progress: { progress: 1, total: 2 } });
    finish({ content: [] });
    await new Promise((r) => setTimeout(r, 0));
    expect(tasks.get(task.task_id)).toMatchObject({ status: 'completed', result: { content: [] } });
    const failing = tasks.start(
      'boom',
      () => Promise.reject(new Error('broke')),
      () => settled++,
    );
    await new Promise((r) => setTimeout(r, 0));
    expect(tasks.get(failing.task_id)).toMatchObject({ status: 'failed', error: { code: 'INTERNAL', message: 'Unexpected error: broke' } });
    expect(settled).toBe(2);
  });

  it('cancel aborts a running task, and leaves an ended one as it ended', async () => {
    const tasks = new DaemonTasks();
    let aborted = false;
    const task = tasks.start(
      'slow',
      (signal) => (signal.addEventListener('abort', () => (aborted = true)), never()),
      () => {},
    );
    expect(tasks.cancel(task.task_id)).toMatchObject({ status: 'cancelled' });
    expect(aborted).toBe(true);
    const done = tasks.start(
      'quick',
      async () => 1,
      () => {},
    );
    await new Promise((r) => setTimeout(r, 0));
    expect(tasks.cancel(done.task_id)).toMatchObject({ status: 'completed' });
    expect(tasks.cancel('nope')).toBeUndefined();
  });

  it(`keeps at most ${MAX_KEPT} ended tasks, newest first in the list; running ones are never dropped`, async () => {
    const tasks = new DaemonTasks();
    const running = tasks.start('forever', never, () => {});
    for (let i = 0; i < MAX_KEPT + 5; i++)
      tasks.start(
        `t${i}`,
        async () => i,
        () => {},
      );
    await new Promise((r) => setTimeout(r, 0));
    tasks.start(
      'last',
      async () => 0,
      () => {},
    );
    const list = tasks.list();
    expect(list.length).toBeLessThanOrEqual(MAX_KEPT + 1);
    expect(list[0]!.tool).toBe('last');
    expect(list.some((t) => t.task_id === running.task_id)).toBe(true);
  });

  it('taskAnswer: NOT_FOUND for an id it does not hold', () => {
    expect(() => taskAnswer(new DaemonTasks(), { action: 'get', id: 'x' })).toThrow(/No task x/);
    expect(taskAnswer(new DaemonTasks(), { action: 'list' })).toEqual({ tasks: [] });
  });
});
