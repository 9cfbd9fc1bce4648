/**
 * Runs `work` on every item with at most `limit` at once, settling like Promise.allSettled: a
 * request that names many items (a listen stream's resources) must not send them all upstream at
 * once, where they would queue behind each other and every other client's requests.
 */
export async function settleAtMost<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const at = next++;
      try {
        results[at] = { status: 'fulfilled', value: await work(items[at]!) };
      } catch (reason) {
        results[at] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, runner));
  return results;
}
