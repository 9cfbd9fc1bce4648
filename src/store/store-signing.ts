import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The signatures of what replicas sharing serve.store tell one another and keep there: whoever can
 * write to the store but does not hold serve.store.key cannot pass a call as a client, answer,
 * cancel, approve, or own a task. HMAC-SHA256 under a key derived per purpose (and per prefix, so
 * two gateways sharing a key and a store still cannot feed each other), over the purpose, what the
 * text is bound to (the channel, or the key a record is kept under), the sender replica, the time
 * and a nonce. No I/O: the clock is given.
 */

/** What a signature may vouch for: the messages on the channel, and the records that confer authority. */
export type Purpose = 'call' | 'reply' | 'cancel' | 'update' | 'task' | 'question';
export const PURPOSES: readonly Purpose[] = ['call', 'reply', 'cancel', 'update', 'task', 'question'];

/** Why a text was not taken. */
export type DropReason = 'unsigned' | 'forged' | 'replayed' | 'stale';

/** How far a message's time may be from the receiver's, either way (clocks of replicas differ a little): older is stale. */
export const FRESH_MS = 30_000;
const VERSION = 1;

/** A signed text as it is kept or sent: JSON of these fields. */
interface Envelope {
  v: number;
  /** Purpose. */
  p: Purpose;
  /** The sender replica (SharedStore.holder). */
  s: string;
  /** When it was signed (ms since the epoch, the sender's clock). */
  t: number;
  /** A nonce: a message is taken once. */
  n: string;
  /** The body, JSON. */
  b: string;
  /** HMAC-SHA256, base64url. */
  h: string;
}

export type Opened = { ok: true; purpose: Purpose; sender: string; body: unknown; sentAt: number; nonce: string } | { ok: false; why: DropReason };

export class StoreSigner {
  private readonly keys = new Map<Purpose, Buffer>();

  constructor(secret: string, scope: string) {
    for (const purpose of PURPOSES)
      this.keys.set(purpose, Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'mcpkit serve.store', `${scope}\n${purpose}`, 32)));
  }

  /** The text to send or keep: `body` signed for `purpose`, bound to `bound` (a channel, a key). */
  seal(purpose: Purpose, bound: string, sender: string, body: unknown, now: number, nonce = randomBytes(12).toString('base64url')): string {
    const b = JSON.stringify(body);
    const envelope: Envelope = { v: VERSION, p: purpose, s: sender, t: now, n: nonce, b, h: '' };
    envelope.h = this.mac(envelope, bound).toString('base64url');
    return JSON.stringify(envelope);
  }

  /** A text's body when it is signed with this key for one of `purposes` and bound to `bound`; else why not. */
  open(text: string, bound: string, purposes: readonly Purpose[]): Opened {
    const envelope = envelopeOf(text);
    if (!envelope || !purposes.includes(envelope.p)) return { ok: false, why: 'unsigned' };
    const given = Buffer.from(envelope.h, 'base64url');
    const expected = this.mac(envelope, bound);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'forged' };
    let body: unknown;
    try {
      body = JSON.parse(envelope.b);
    } catch {
      return { ok: false, why: 'forged' };
    }
    return { ok: true, purpose: envelope.p, sender: envelope.s, body, sentAt: envelope.t, nonce: envelope.n };
  }

  private mac(envelope: Envelope, bound: string): Buffer {
    const key = this.keys.get(envelope.p)!;
    return createHmac('sha256', key)
      .update(`mcpkit-store/v${VERSION}\n${envelope.p}\n${bound}\n${envelope.s}\n${envelope.t}\n${envelope.n}\n${envelope.b}`)
      .digest();
  }
}

function envelopeOf(text: string): Envelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const e = value as Partial<Envelope> | null;
  if (!e || typeof e !== 'object' || e.v !== VERSION) return undefined;
  const strings = [e.s, e.n, e.b, e.h].every((field) => typeof field === 'string');
  if (!strings || !PURPOSES.includes(e.p as Purpose) || typeof e.t !== 'number' || !Number.isFinite(e.t)) return undefined;
  return e as Envelope;
}

/**
 * The nonces of the messages taken within the freshness window: a message heard twice (an
 * attacker publishing a captured one again) is a replay. Only messages whose signature holds are
 * remembered, so its size follows the replicas' own traffic.
 */
export class ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(private readonly freshMs = FRESH_MS) {}

  /** Whether a signed message sent at `sentAt` with `nonce` is taken now: fresh, and not heard before. */
  admit(sentAt: number, nonce: string, now: number): true | 'stale' | 'replayed' {
    if (Math.abs(now - sentAt) > this.freshMs) return 'stale';
    if (this.seen.has(nonce)) return 'replayed';
    // Kept in the order heard (about the order sent): the expired ones are at the front.
    for (const [n, until] of this.seen) {
      if (until >= now) break;
      this.seen.delete(n);
    }
    this.seen.set(nonce, sentAt + 2 * this.freshMs);
    return true;
  }
}
