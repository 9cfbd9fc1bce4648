import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * A tiny zip writer over Node's native zlib, for tests that need hostile zips (bombs, paths that
 * climb out) cheaply: JSZip's pure-JS deflate spends seconds of CPU on a big entry, this spends
 * milliseconds. Deflate only, no zip64: enough for a bundle the code under test must refuse.
 */
export interface ZipEntry {
  name: string;
  /** The entry's data, deflated (raw deflate, as a zip stores it). */
  deflated: Buffer;
  crc: number;
  size: number;
}

export function entryOf(name: string, data: Buffer | string): ZipEntry {
  const bytes = Buffer.from(data);
  return { name, deflated: deflateRawSync(bytes), crc: crc32(bytes), size: bytes.length };
}

/**
 * `mebibytes` MiB of zeros, deflated without ever holding them: one MiB of zeros deflated with a
 * sync flush ends byte-aligned on a block that is not final and refers to nothing before it, so
 * the same bytes repeated, closed by an empty final block, are a valid stream of any length.
 */
export function zerosEntry(name: string, mebibytes: number): ZipEntry {
  const mib = Buffer.alloc(1024 * 1024);
  const block = deflateRawSync(mib, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const last = deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < mebibytes; i++) crc = crc32(mib, crc);
  return { name, deflated: Buffer.concat([...Array.from({ length: mebibytes }, () => block), last]), crc, size: mebibytes * mib.length };
}

const DOS_DATE_1980_01_01 = 0x21;

export function zipOf(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    writeCommon(local, 6, entry, name.length);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    writeCommon(central, 8, entry, name.length);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + entry.deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The fields the local header and the central directory share, from "general purpose flags" on. */
function writeCommon(header: Buffer, at: number, entry: ZipEntry, nameLength: number): void {
  header.writeUInt16LE(0, at); // flags: sizes and CRC are in the header, names are plain
  header.writeUInt16LE(8, at + 2); // deflate
  header.writeUInt16LE(0, at + 4); // time
  header.writeUInt16LE(DOS_DATE_1980_01_01, at + 6);
  header.writeUInt32LE(entry.crc >>> 0, at + 8);
  header.writeUInt32LE(entry.deflated.length, at + 12);
  header.writeUInt32LE(entry.size, at + 16);
  header.writeUInt16LE(nameLength, at + 20);
  header.writeUInt16LE(0, at + 22); // extra field length
}
