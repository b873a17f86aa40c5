/**
 * /favicon.ico: every browser asks for it, and a 404 there was a log line per visit. A 32×32
 * icon (a white mortarboard on the pages' accent blue) built at start from a 16×16 drawing, as an
 * ICO holding one 32-bit BMP — the format every browser reads at that path.
 */

/** `#` accent blue, `o` white, `.` transparent; doubled to 32×32. */
const DRAWING = [
  '.##############.',
  '################',
  '################',
  '#######oo#######',
  '#####oooooo#####',
  '###oooooooooo###',
  '##oooooooooooo##',
  '###oooooooooo#o#',
  '#####oooooo###o#',
  '####o##oo##o##o#',
  '####oo####oo##o#',
  '####oooooooo####',
  '#####oooooo#####',
  '################',
  '################',
  '.##############.',
];

/** BGRA of each drawing character. */
const COLOURS: Readonly<Record<string, readonly number[]>> = {
  '#': [0xeb, 0x6f, 0x1f, 0xff],
  o: [0xff, 0xff, 0xff, 0xff],
  '.': [0, 0, 0, 0],
};

const SIZE = 32;
const SCALE = SIZE / DRAWING.length;

function pixels(): Buffer {
  const out = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    // BMP rows run bottom-up.
    const row = DRAWING[Math.floor((SIZE - 1 - y) / SCALE)]!;
    for (let x = 0; x < SIZE; x++) out.set(COLOURS[row[Math.floor(x / SCALE)]!]!, (y * SIZE + x) * 4);
  }
  return out;
}

function buildIcon(): Buffer {
  const image = pixels();
  // The 1-bit AND mask, rows padded to 4 bytes; all zero, the alpha channel decides.
  const mask = Buffer.alloc(((SIZE + 31) >> 5) * 4 * SIZE);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // BITMAPINFOHEADER size
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // the image and its mask, stacked
  info.writeUInt16LE(1, 12); // planes
  info.writeUInt16LE(32, 14); // bits per pixel
  info.writeUInt32LE(image.length + mask.length, 20);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(info.length + image.length + mask.length, 14);
  header.writeUInt32LE(header.length, 18); // where the image starts
  return Buffer.concat([header, info, image, mask]);
}

export const FAVICON_PATH = '/favicon.ico';
export const FAVICON = buildIcon();
