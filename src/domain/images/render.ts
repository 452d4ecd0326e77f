/**
 * The builtin image engine: a deterministic picture from a prompt and a seed, encoded as a PNG, with no model.
 */
import { createHash } from "node:crypto";
import { encodeRgbPng } from "./png-encode.js";

/** What the builtin engine renders from. */
export interface RenderRequest {
  prompt: string;
  width: number;
  height: number;
  seed: number;
}

/** Limits and defaults of generated images. */
export const RENDER_LIMITS = { minSide: 64, maxSide: 2048, defaultSide: 1024, maxPromptChars: 1000 } as const;

type Rgb = [number, number, number];

/** sfc32: a small, fast PRNG whose whole state comes from the prompt's hash. */
function prng(seedBytes: Buffer): () => number {
  let a = seedBytes.readUInt32LE(0);
  let b = seedBytes.readUInt32LE(4);
  let c = seedBytes.readUInt32LE(8);
  let d = seedBytes.readUInt32LE(12);
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

function hsl(h: number, s: number, l: number): Rgb {
  const hue = (((h % 360) + 360) % 360) / 360;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  return [channel(hue + 1 / 3) * 255, channel(hue) * 255, channel(hue - 1 / 3) * 255];
}

// Words of a prompt that pull the palette towards a colour: [hue, saturation, lightness].
const COLOUR_WORDS: Record<string, [number, number, number]> = {
  red: [0, 0.75, 0.5],
  crimson: [348, 0.8, 0.42],
  scarlet: [5, 0.85, 0.48],
  coral: [12, 0.8, 0.62],
  orange: [28, 0.9, 0.55],
  amber: [40, 0.95, 0.5],
  gold: [45, 0.85, 0.52],
  golden: [45, 0.85, 0.52],
  yellow: [55, 0.9, 0.58],
  lime: [90, 0.7, 0.5],
  green: [125, 0.55, 0.42],
  emerald: [145, 0.65, 0.4],
  mint: [155, 0.5, 0.72],
  teal: [178, 0.6, 0.38],
  turquoise: [174, 0.65, 0.52],
  cyan: [186, 0.75, 0.5],
  blue: [218, 0.7, 0.5],
  navy: [225, 0.6, 0.24],
  indigo: [250, 0.55, 0.38],
  violet: [272, 0.55, 0.55],
  purple: [282, 0.5, 0.45],
  lavender: [265, 0.5, 0.78],
  magenta: [305, 0.75, 0.52],
  pink: [335, 0.75, 0.72],
  rose: [345, 0.65, 0.6],
  brown: [25, 0.45, 0.32],
  black: [230, 0.15, 0.08],
  white: [40, 0.25, 0.95],
  gray: [220, 0.08, 0.55],
  grey: [220, 0.08, 0.55],
  sunset: [18, 0.85, 0.55],
  sunrise: [35, 0.85, 0.62],
  fire: [10, 0.9, 0.5],
  ocean: [200, 0.7, 0.42],
  sea: [195, 0.6, 0.45],
  sky: [205, 0.7, 0.66],
  forest: [135, 0.5, 0.3],
  night: [235, 0.5, 0.16],
  ice: [195, 0.55, 0.85],
  snow: [210, 0.2, 0.93],
  desert: [38, 0.55, 0.66],
  sand: [40, 0.5, 0.72],
};

/** The palette: colours named in the prompt first, then a harmony around the first hue. */
function palette(prompt: string, random: () => number): Rgb[] {
  const named = (prompt.toLowerCase().match(/\p{L}+/gu) ?? [])
    .map((w) => COLOUR_WORDS[w])
    .filter((c): c is [number, number, number] => c !== undefined)
    .slice(0, 3);
  const base = named[0]?.[0] ?? random() * 360;
  const harmony = [
    [0, 30, -30, 60],
    [0, 180, 30, 210],
    [0, 120, 240, 60],
    [0, 150, 210, 30],
  ][Math.floor(random() * 4)];
  const colours: Rgb[] = named.map(([h, s, l]) => hsl(h, s, l));
  for (let i = 0; colours.length < 5; i++) {
    const h = base + harmony[i % 4] + (random() - 0.5) * 16;
    colours.push(hsl(h, 0.45 + random() * 0.4, 0.3 + random() * 0.45));
  }
  return colours;
}

/** Blends a colour over one pixel with coverage `a` (0–1). */
function blend(px: Uint8Array, i: number, c: Rgb, a: number): void {
  px[i] += (c[0] - px[i]) * a;
  px[i + 1] += (c[1] - px[i + 1]) * a;
  px[i + 2] += (c[2] - px[i + 2]) * a;
}

/**
 * Renders the builtin engine's picture for a prompt: a gradient ground and a composition of discs, rings, bars and
 * glows whose colours (named colours in the prompt lead), layout and sizes come from a hash of the prompt and seed.
 * The same request always gives the same bytes; the layout is proportional, so other sizes show the same picture.
 */
export function renderPng(req: RenderRequest): Buffer {
  const { width: w, height: h } = req;
  const digest = createHash("sha256").update(`builtin-image-v1\0${req.seed}\0${req.prompt}`).digest();
  const random = prng(digest);
  const colours = palette(req.prompt, random);
  const stride = w * 3 + 1;
  const raw = new Uint8Array(stride * h);
  // A view whose stores round and clamp, for blending.
  const px = new Uint8ClampedArray(raw.buffer) as unknown as Uint8Array;

  // Ground: a linear gradient between the two darkest-and-lightest pair of the first colours, at a random angle.
  const angle = random() * Math.PI * 2;
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const reach = Math.abs(dx) * w + Math.abs(dy) * h;
  const [g0, g1] = [colours[0], colours[1]].map((c, k) => c.map((v) => v * (k === 0 ? 0.55 : 1.1))) as Rgb[];
  for (let y = 0; y < h; y++) {
    const row = y * stride + 1;
    for (let x = 0; x < w; x++) {
      let t = ((x - w / 2) * dx + (y - h / 2) * dy) / reach + 0.5;
      t = t * t * (3 - 2 * t);
      const i = row + x * 3;
      px[i] = g0[0] + (g1[0] - g0[0]) * t;
      px[i + 1] = g0[1] + (g1[1] - g0[1]) * t;
      px[i + 2] = g0[2] + (g1[2] - g0[2]) * t;
    }
  }

  const side = Math.min(w, h);
  const shapes = 4 + Math.floor(random() * 5);
  for (let s = 0; s < shapes; s++) {
    const kind = random();
    const colour = colours[1 + Math.floor(random() * (colours.length - 1))];
    const alpha = 0.35 + random() * 0.5;
    const cx = random() * w;
    const cy = random() * h;
    const r = side * (0.08 + random() * 0.27);
    // Coverage by signed distance d (negative inside): a one-pixel antialiased edge, or a wide soft glow.
    const feather = kind < 0.2 ? r * 0.9 : 1;
    let reachOut = r + feather;
    let distance: (x: number, y: number) => number;
    if (kind < 0.55) {
      distance = (x, y) => Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r;
    } else if (kind < 0.75) {
      const band = r * (0.12 + random() * 0.2);
      distance = (x, y) => Math.abs(Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r) - band;
      reachOut = r + band + feather;
    } else {
      const theta = random() * Math.PI;
      const cos = Math.cos(theta);
      const sin = Math.sin(theta);
      const hw = r * (0.6 + random() * 1.4);
      const hh = r * (0.15 + random() * 0.5);
      distance = (x, y) => {
        const u = Math.abs((x - cx) * cos + (y - cy) * sin) - hw;
        const v = Math.abs(-(x - cx) * sin + (y - cy) * cos) - hh;
        return u > 0 && v > 0 ? Math.sqrt(u * u + v * v) : Math.max(u, v);
      };
      reachOut = Math.hypot(hw, hh) + feather;
    }
    const x0 = Math.max(0, Math.floor(cx - reachOut));
    const x1 = Math.min(w - 1, Math.ceil(cx + reachOut));
    const y0 = Math.max(0, Math.floor(cy - reachOut));
    const y1 = Math.min(h - 1, Math.ceil(cy + reachOut));
    for (let y = y0; y <= y1; y++) {
      const row = y * stride + 1;
      for (let x = x0; x <= x1; x++) {
        const d = distance(x + 0.5, y + 0.5);
        if (d >= feather / 2) continue;
        let cover = d <= -feather / 2 ? 1 : 0.5 - d / feather;
        if (feather > 1) cover = cover * cover * (3 - 2 * cover);
        blend(px, row + x * 3, colour, cover * alpha);
      }
    }
  }
  return encodeRgbPng(w, h, raw);
}
