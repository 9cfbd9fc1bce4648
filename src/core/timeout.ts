/**
 * Races `promise` against a deadline of `ms`. At the deadline `onTimeout` runs (to clean up, if
 * the caller needs to) and the error it returns is the rejection; the timer never outlives the race.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
