/** One kind of event, to listen to only (a role's view of `Listeners`): `on` returns the function that stops listening. */
export interface Subscribable<A extends unknown[] = []> {
  on(listener: (...args: A) => void): () => void;
}

/**
 * The listeners of one kind of event. `on` returns the function that removes the listener, so a
 * client that goes away (an HTTP session that ends) stops listening without keeping a reference.
 */
export class Listeners<A extends unknown[] = []> implements Subscribable<A> {
  private readonly set = new Set<(...args: A) => void>();

  on(listener: (...args: A) => void): () => void {
    this.set.add(listener);
    return () => void this.set.delete(listener);
  }

  emit(...args: A): void {
    for (const listener of [...this.set]) listener(...args);
  }
}
