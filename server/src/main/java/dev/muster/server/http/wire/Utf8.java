package dev.muster.server.http.wire;

/**
 * Checks that bytes are well-formed UTF-8 (RFC 3629: shortest forms only, no surrogates, nothing above U+10FFFF).
 * The parser checks every string it reads, but not the key names inside objects it skips; node objects are skipped
 * and then sent back verbatim, so their bytes are checked here. Stateless.
 */
final class Utf8 {
    private Utf8() {}

    /** The index of the first byte in {@code b[from, to)} that starts no well-formed sequence there, or -1. */
    static int firstInvalid(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            int c = b[i];
            if (c >= 0) { // ASCII, nearly every byte of a node object
                i++;
                continue;
            }
            int length = sequenceLength(b, i, to);
            if (length == 0) {
                return i;
            }
            i += length;
        }
        return -1;
    }

    /** Length of the well-formed multi-byte sequence starting at {@code i}, or 0. */
    private static int sequenceLength(byte[] b, int i, int to) {
        int lead = b[i] & 0xFF;
        int length;
        int min;
        int max;
        if (lead >= 0xC2 && lead <= 0xDF) {
            return continuation(b, i + 1, to) ? 2 : 0;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            min = lead == 0xE0 ? 0xA0 : 0x80; // no overlong forms
            max = lead == 0xED ? 0x9F : 0xBF; // no surrogates
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            min = lead == 0xF0 ? 0x90 : 0x80; // no overlong forms
            max = lead == 0xF4 ? 0x8F : 0xBF; // nothing above U+10FFFF
        } else {
            return 0;
        }
        if (i + length > to) {
            return 0;
        }
        int second = b[i + 1] & 0xFF;
        if (second < min || second > max) {
            return 0;
        }
        for (int k = 2; k < length; k++) {
            if (!continuation(b, i + k, to)) {
                return 0;
            }
        }
        return length;
    }

    private static boolean continuation(byte[] b, int i, int to) {
        return i < to && (b[i] & 0xC0) == 0x80;
    }
}
