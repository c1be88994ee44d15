// A drop-in for `Intl.Segmenter` that the build substitutes in every bundled module (scripts/build.mjs).
//
// Why: Ink's text helpers (string-width, wrap-ansi, slice-ansi, cli-truncate, ansi-tokenize, Ink's line diff) each
// build an `Intl.Segmenter` when their module loads. The first Intl object of a process initialises ICU, about
// 20 ms of the console's start-up before anything is drawn. This class builds the real segmenter on first need,
// and for text in which every code point is its own grapheme cluster (the console's own text: Latin, punctuation,
// arrows, box drawing, blocks, braille charts, symbols) it splits by code point without ICU at all.

const NativeSegmenter = globalThis.Intl.Segmenter;

/**
 * Text made only of these code points splits into one grapheme cluster per code point (UAX #29): none of them is
 * Extend, ZWJ, SpacingMark, Prepend, Hangul jamo or syllable, Regional_Indicator or CR, the only classes that join
 * a code point to its neighbour (controls, ESC of colour codes included, always stand alone). All are in the BMP, so
 * one UTF-16 unit is one code point. Tests check every code point of the set against the real segmenter.
 */
export const SINGLE_CODE_POINT_CLUSTERS =
  /^[\u0000-\u000C\u000E-\u02FF\u2010-\u2027\u2030-\u205F\u2070-\u20CF\u2100-\u2BFF]*$/;

interface SegmentData {
  segment: string;
  index: number;
  input: string;
  isWordLike?: boolean;
}

function* codePointSegments(input: string): Generator<SegmentData> {
  for (let index = 0; index < input.length; index++) yield { segment: input[index] as string, index, input };
}

/** What `segment()` returns: iterable, with `containing()`, like the native `Segments`. */
class CodePointSegments {
  readonly #input: string;
  constructor(input: string) {
    this.#input = input;
  }
  [Symbol.iterator](): Iterator<SegmentData> {
    return codePointSegments(this.#input);
  }
  containing(codeUnitIndex = 0): SegmentData | undefined {
    const index = Math.trunc(Number(codeUnitIndex) || 0);
    if (index < 0 || index >= this.#input.length) return undefined;
    return { segment: this.#input[index] as string, index, input: this.#input };
  }
}

export class LazyGraphemeSegmenter {
  static supportedLocalesOf(locales?: string | string[], options?: Intl.SegmenterOptions): string[] {
    return NativeSegmenter.supportedLocalesOf(locales, options);
  }

  readonly #locales: string | string[] | undefined;
  readonly #options: Intl.SegmenterOptions | undefined;
  readonly #byCodePoint: boolean;
  #native: Intl.Segmenter | undefined;

  constructor(locales?: string | string[], options?: Intl.SegmenterOptions) {
    this.#locales = locales;
    this.#options = options;
    // Only grapheme segmentation has a shortcut; words and sentences always go to ICU.
    this.#byCodePoint = (options?.granularity ?? 'grapheme') === 'grapheme';
  }

  #real(): Intl.Segmenter {
    return (this.#native ??= new NativeSegmenter(this.#locales, this.#options));
  }

  segment(input: string): Intl.Segments | CodePointSegments {
    const text = String(input);
    if (this.#byCodePoint && SINGLE_CODE_POINT_CLUSTERS.test(text)) return new CodePointSegments(text);
    return this.#real().segment(text);
  }

  resolvedOptions(): Intl.ResolvedSegmenterOptions {
    return this.#real().resolvedOptions();
  }
}
