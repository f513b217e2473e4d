/** Types of scripts/ascii-regex-literals.mjs (plain JavaScript, see there). */
export declare function escapeRegexLiterals(source: string): {
  source: string;
  leftNonAscii: number;
};
