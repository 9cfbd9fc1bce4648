/**
 * A per-file Bloom filter of byte trigrams and 6-grams, so that a search repeated inside one
 * `serve` process reads only the files that can contain its text. Pure.
 *
 * The filter is built over a folded byte stream, so one filter serves case-sensitive and
 * case-insensitive queries alike: ASCII letters are lower-cased, and the three characters that
 * JavaScript's case-insensitive matching (regex `iu`, toLowerCase) equates with ASCII letters are
 * replaced by them: KELVIN SIGN by k, LONG S by s, DOTTED CAPITAL I by i. A needle is folded the
 * same way; its keys must all be in a file's filter for the file to be read.
 *
 * The keys are every trigram and every 6-gram (two trigrams three apart). Trigrams alone let
 * through most large source files for a word made of common parts: "createserver" read 3,014
 * files (214 MB) of a 35,000-file tree where 170 (7 MB) hold it; with 6-grams, 177 (10 MB).
 *
 * A filter is sized to what it holds: about five bits per distinct key (a power of two, at least
 * 512), so that about a fifth of its bits are set whatever the file. Sized by bytes instead, a
 * small file's filter was over half set (a three-letter query read one small file in 25 for
 * nothing) and a large one's nearly empty. Built at eight bits per byte first, then folded down:
 * a key's bit is the top bits of its hash, so a smaller filter is the larger one's bits shifted.
 */
const FOLD = new Uint8Array(256).map((_, b) => (b >= 65 && b <= 90 ? b | 32 : b));
/**
 * The byte every digit stands as in a shape key: a window of three bytes with a digit in it is
 * also kept with its digits replaced by this (a "shape": "2024-" gives "\x01\x01-" among others),
 * so that a regular expression of digit classes and no literal (`[0-9]{4}-[0-9]{2}`) still
 * narrows the files read (regex-grams.ts). 0x01 is no byte of text.
 */
export const DIGIT_SHAPE = 1;
const SHAPE = FOLD.map((b, i) => (i >= 48 && i <= 57 ? DIGIT_SHAPE : b));
const MULTIPLIER = 0x9e3779b1;
/** The key of the six bytes that end with trigram `t` and begin with trigram `earlier` (the file's and the needle's alike). */
const sixGram = (t: number, earlier: number) => t ^ Math.imul(earlier, 0x85ebca6b);
const MIN_BITS = 512;
const MAX_BITS = 1 << 24;
const BITS_PER_KEY = 5;

/** Length of the UTF-8 sequence at `i` that folds to an ASCII letter (returned in `out[0]`), else 0. */
function foldsToAscii(buf: Uint8Array, i: number, len: number, out: number[]): number {
  const b = buf[i]!;
  if (b === 0xc4 && i + 1 < len && buf[i + 1] === 0xb0) return ((out[0] = 105), 2); // İ U+0130
  if (b === 0xc5 && i + 1 < len && buf[i + 1] === 0xbf) return ((out[0] = 115), 2); // ſ U+017F
  if (b === 0xe2 && i + 2 < len && buf[i + 1] === 0x84 && buf[i + 2] === 0xaa) return ((out[0] = 107), 3); // K U+212A
  return 0;
}

/** The smallest power of two of at least `wanted` bits, from MIN_BITS to MAX_BITS. */
function powerOfTwoBits(wanted: number): number {
  let bits = MIN_BITS;
  while (bits < wanted && bits < MAX_BITS) bits *= 2;
  return bits;
}

export function buildTrigrams(buf: Uint8Array, len: number): Uint32Array {
  const first = powerOfTwoBits(8 * len);
  const shift = 32 - Math.log2(first);
  const set = new Uint32Array(first >>> 5);
  const folded = [0];
  // The trigrams ending at the last three positions, for 6-grams. The first positions set bits
  // for partial keys: harmless, a filter may only err towards "maybe".
  let t1 = 0;
  let t2 = 0;
  let t3 = 0;
  let h = 0;
  let s = 0;
  for (let i = 0; i < len; i++) {
    let c = buf[i]!;
    if (c >= 0xc4) {
      const skip = foldsToAscii(buf, i, len, folded);
      if (skip) {
        c = folded[0]!;
        i += skip - 1;
      }
    }
    h = ((h << 8) | FOLD[c]!) & 0xffffff;
    const k = Math.imul(h, MULTIPLIER) >>> shift;
    set[k >>> 5]! |= 1 << (k & 31);
    s = ((s << 8) | SHAPE[c]!) & 0xffffff;
    if (s !== h) {
      const ks = Math.imul(s, MULTIPLIER) >>> shift;
      set[ks >>> 5]! |= 1 << (ks & 31);
    }
    const k6 = Math.imul(sixGram(h, t3), MULTIPLIER) >>> shift;
    set[k6 >>> 5]! |= 1 << (k6 & 31);
    t3 = t2;
    t2 = t1;
    t1 = h;
  }
  return shrink(set, first);
}

/** The same filter at about BITS_PER_KEY bits per key it holds: each set bit's index shifted right. */
function shrink(set: Uint32Array, bits: number): Uint32Array {
  let keys = 0;
  for (let w = 0; w < set.length; w++) keys += bitCount(set[w]!);
  const target = Math.min(bits, powerOfTwoBits(BITS_PER_KEY * keys));
  if (target === bits) return set;
  const by = Math.log2(bits / target);
  const out = new Uint32Array(target >>> 5);
  for (let w = 0; w < set.length; w++) {
    let word = set[w]!;
    while (word !== 0) {
      const low = word & -word;
      const j = ((w << 5) | (31 - Math.clz32(low))) >>> by;
      out[j >>> 5]! |= 1 << (j & 31);
      word ^= low;
    }
  }
  return out;
}

function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function foldedBytes(needle: Uint8Array): number[] {
  const out: number[] = [];
  const folded = [0];
  for (let i = 0; i < needle.length; i++) {
    const skip = foldsToAscii(needle, i, needle.length, folded);
    if (skip) {
      out.push(folded[0]!);
      i += skip - 1;
    } else out.push(FOLD[needle[i]!]!);
  }
  return out;
}

/**
 * The keys (trigrams and 6-grams) a file must contain to match `needle`, or undefined when no
 * filter applies (fewer than three usable bytes). Case-insensitive matching equates non-ASCII
 * letters with their other case, which the filter does not fold, so keys with non-ASCII bytes are
 * not required then.
 */
export function requiredTrigrams(needle: Uint8Array, caseInsensitive: boolean): number[] | undefined {
  const bytes = foldedBytes(needle);
  const keys = new Set<number>();
  const trigrams: (number | undefined)[] = [];
  for (let i = 2; i < bytes.length; i++) {
    const a = bytes[i - 2]!;
    const b = bytes[i - 1]!;
    const c = bytes[i]!;
    const usable = !(caseInsensitive && (a | b | c) >= 0x80);
    const t = (a << 16) | (b << 8) | c;
    trigrams.push(usable ? t : undefined);
    if (usable) keys.add(t);
    const before = trigrams.length > 3 ? trigrams[trigrams.length - 4] : undefined;
    if (usable && before !== undefined) keys.add(sixGram(t, before));
  }
  return keys.size ? [...keys] : undefined;
}

/** The key of three (folded) bytes, as buildTrigrams and requiredTrigrams make it. */
export function trigramKey(a: number, b: number, c: number): number {
  return (a << 16) | (b << 8) | c;
}

/** Whether the filter may hold one key of each group (regex-grams.ts: what a regular expression without a literal requires). */
export function mayContainOneOfEach(set: Uint32Array, groups: readonly (readonly number[])[]): boolean {
  const shift = Math.clz32(set.length) - 4;
  for (const group of groups) {
    let any = false;
    for (const t of group) {
      const k = Math.imul(t, MULTIPLIER) >>> shift;
      if ((set[k >>> 5]! & (1 << (k & 31))) !== 0) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

export function mayContain(set: Uint32Array, trigrams: readonly number[]): boolean {
  // 32 - log2(bits), bits = 32 * set.length, a power of two.
  const shift = Math.clz32(set.length) - 4;
  for (const t of trigrams) {
    const k = Math.imul(t, MULTIPLIER) >>> shift;
    if ((set[k >>> 5]! & (1 << (k & 31))) === 0) return false;
  }
  return true;
}
