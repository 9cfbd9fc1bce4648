/**
 * The options undici's Agent was made with (it keeps them under its own `Symbol('options')`); none
 * found: the defaults. What a resend's pool is made with (./resend-agent.ts), and where the pool's
 * keep-alive timing is read (./idle-connections.ts).
 */
export function poolOptions(agent: object): object {
  const key = Object.getOwnPropertySymbols(agent).find((symbol) => symbol.description === 'options');
  const options = key === undefined ? undefined : (agent as Record<symbol, unknown>)[key];
  return options && typeof options === 'object' ? { ...options } : {};
}
