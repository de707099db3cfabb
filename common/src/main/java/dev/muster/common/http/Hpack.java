package dev.muster.common.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.function.BiConsumer;

/**
 * HPACK, the header compression of HTTP/2 (RFC 7541), as far as a server needs it: a {@link Decoder} for what clients
 * send — every representation, the dynamic table, Huffman-coded strings — and two encoders for answers that never
 * touch a dynamic table and never Huffman-code ({@link #status}, {@link #literal}), so the client's decoder for this
 * server's answers stays at its empty table. Strings are octets: names and values are read as ISO-8859-1, which keeps
 * every byte.
 */
final class Hpack {
    private Hpack() {}

    /** RFC 7541, Appendix A: index 1 to 61. */
    private static final String[][] STATIC = {
            {":authority", ""}, {":method", "GET"}, {":method", "POST"}, {":path", "/"}, {":path", "/index.html"},
            {":scheme", "http"}, {":scheme", "https"}, {":status", "200"}, {":status", "204"}, {":status", "206"},
            {":status", "304"}, {":status", "400"}, {":status", "404"}, {":status", "500"}, {"accept-charset", ""},
            {"accept-encoding", "gzip, deflate"}, {"accept-language", ""}, {"accept-ranges", ""}, {"accept", ""},
            {"access-control-allow-origin", ""}, {"age", ""}, {"allow", ""}, {"authorization", ""}, {"cache-control", ""},
            {"content-disposition", ""}, {"content-encoding", ""}, {"content-language", ""}, {"content-length", ""},
            {"content-location", ""}, {"content-range", ""}, {"content-type", ""}, {"cookie", ""}, {"date", ""},
            {"etag", ""}, {"expect", ""}, {"expires", ""}, {"from", ""}, {"host", ""}, {"if-match", ""},
            {"if-modified-since", ""}, {"if-none-match", ""}, {"if-range", ""}, {"if-unmodified-since", ""},
            {"last-modified", ""}, {"link", ""}, {"location", ""}, {"max-forwards", ""}, {"proxy-authenticate", ""},
            {"proxy-authorization", ""}, {"range", ""}, {"referer", ""}, {"refresh", ""}, {"retry-after", ""},
            {"server", ""}, {"set-cookie", ""}, {"strict-transport-security", ""}, {"transfer-encoding", ""},
            {"user-agent", ""}, {"vary", ""}, {"via", ""}, {"www-authenticate", ""},
    };

    /** The answer's status: an indexed static entry for 200, 204, 206, 304, 400, 404 and 500, else a literal. */
    static void status(ByteArrayOutputStream out, int status) {
        for (int i = 7; i <= 13; i++) {
            if (STATIC[i][1].equals(Integer.toString(status))) {
                integer(out, 0x80, 7, i + 1);
                return;
            }
        }
        integer(out, 0x00, 4, 8); // literal without indexing, name :status (index 8)
        string(out, Integer.toString(status).getBytes(StandardCharsets.US_ASCII));
    }

    /** A literal field without indexing, its name written out (lower case, as HTTP/2 requires) and not Huffman-coded. */
    static void literal(ByteArrayOutputStream out, String name, String value) {
        if (!name.equals(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("HTTP/2 header names are lower case, not \"" + name + "\"");
        }
        out.write(0x00);
        string(out, name.getBytes(StandardCharsets.ISO_8859_1));
        string(out, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void string(ByteArrayOutputStream out, byte[] octets) {
        integer(out, 0x00, 7, octets.length);
        out.writeBytes(octets);
    }

    /** An integer with an N-bit prefix (RFC 7541 §5.1); {@code first} carries the bits above the prefix. */
    static void integer(ByteArrayOutputStream out, int first, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(first | value);
            return;
        }
        out.write(first | max);
        value -= max;
        while (value >= 0x80) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /**
     * Decodes the header blocks of one connection, in order (the dynamic table carries over from block to block).
     * Not thread-safe: the connection's reading thread alone uses it. After an {@link HpackException} its table is no
     * longer in step with the client's, and the connection must end (COMPRESSION_ERROR).
     */
    static final class Decoder {
        private final int maxTableSize;
        private final int maxHeaderListSize;
        private final ArrayDeque<String[]> table = new ArrayDeque<>(); // newest first: index 62 is its head
        private int tableSize;
        private int tableLimit;

        /**
         * @param maxTableSize      the SETTINGS_HEADER_TABLE_SIZE this server announced (4096 by default)
         * @param maxHeaderListSize the most a block's fields may add up to (name + value + 32 octets each)
         */
        Decoder(int maxTableSize, int maxHeaderListSize) {
            this.maxTableSize = maxTableSize;
            this.maxHeaderListSize = maxHeaderListSize;
            this.tableLimit = maxTableSize;
        }

        /** The dynamic table's size in octets as RFC 7541 counts it (tests read it). */
        int tableSize() {
            return tableSize;
        }

        /** The dynamic table's entries, newest first (tests read it). */
        java.util.List<String[]> entries() {
            return java.util.List.copyOf(table);
        }

        /** Decodes one complete header block, handing each field to {@code sink} in order. */
        void decode(byte[] block, int offset, int length, BiConsumer<String, String> sink) throws HpackException {
            Reader r = new Reader(block, offset, offset + length);
            int listSize = 0;
            boolean fieldSeen = false;
            while (r.more()) {
                int b = r.peek();
                String name;
                String value;
                if ((b & 0x80) != 0) { // indexed field
                    String[] field = field(r.integer(7));
                    name = field[0];
                    value = field[1];
                } else if ((b & 0xc0) == 0x40) { // literal with incremental indexing
                    int index = r.integer(6);
                    name = index == 0 ? r.string() : field(index)[0];
                    value = r.string();
                    add(name, value);
                } else if ((b & 0xe0) == 0x20) { // dynamic table size update
                    if (fieldSeen) {
                        throw new HpackException("HPACK: a dynamic table size update after a header field; it may only open a block");
                    }
                    int size = r.integer(5);
                    if (size > maxTableSize) {
                        throw new HpackException("HPACK: dynamic table size update to " + size + " exceeds the " + maxTableSize
                                + " octets announced");
                    }
                    tableLimit = size;
                    evictTo(tableLimit);
                    continue;
                } else { // literal without indexing (0000) or never indexed (0001)
                    int index = r.integer(4);
                    name = index == 0 ? r.string() : field(index)[0];
                    value = r.string();
                }
                fieldSeen = true;
                listSize += name.length() + value.length() + 32;
                if (listSize > maxHeaderListSize) {
                    throw new HpackException("HPACK: the header list exceeds " + maxHeaderListSize + " octets");
                }
                sink.accept(name, value);
            }
        }

        private String[] field(int index) throws HpackException {
            if (index == 0) {
                throw new HpackException("HPACK: index 0 names no field");
            }
            if (index <= STATIC.length) {
                return STATIC[index - 1];
            }
            int dynamic = index - STATIC.length - 1;
            if (dynamic >= table.size()) {
                throw new HpackException("HPACK: index " + index + " is beyond the static and dynamic tables ("
                        + (STATIC.length + table.size()) + " entries)");
            }
            int i = 0;
            for (String[] e : table) {
                if (i++ == dynamic) {
                    return e;
                }
            }
            throw new AssertionError();
        }

        private void add(String name, String value) {
            int size = name.length() + value.length() + 32;
            if (size > tableLimit) { // larger than the table: it empties it (RFC 7541 §4.4)
                table.clear();
                tableSize = 0;
                return;
            }
            evictTo(tableLimit - size);
            table.addFirst(new String[] {name, value});
            tableSize += size;
        }

        private void evictTo(int limit) {
            while (tableSize > limit) {
                String[] e = table.removeLast();
                tableSize -= e[0].length() + e[1].length() + 32;
            }
        }
    }

    /** Reads integers and strings from one block. */
    private static final class Reader {
        private final byte[] b;
        private int pos;
        private final int end;

        Reader(byte[] b, int pos, int end) {
            this.b = b;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        int peek() {
            return b[pos] & 0xff;
        }

        private int next() throws HpackException {
            if (pos >= end) {
                throw new HpackException("HPACK: the block ends inside a field");
            }
            return b[pos++] & 0xff;
        }

        int integer(int prefixBits) throws HpackException {
            int max = (1 << prefixBits) - 1;
            int value = next() & max;
            if (value < max) {
                return value;
            }
            for (int shift = 0; ; shift += 7) {
                int octet = next();
                if (shift > 28 || (shift == 28 && (octet & 0x7f) > 7)) {
                    throw new HpackException("HPACK: an integer larger than 2^31-1");
                }
                value += (octet & 0x7f) << shift;
                if (value < 0) {
                    throw new HpackException("HPACK: an integer larger than 2^31-1");
                }
                if ((octet & 0x80) == 0) {
                    return value;
                }
            }
        }

        String string() throws HpackException {
            boolean huffman = (peek() & 0x80) != 0;
            int length = integer(7);
            if (length > end - pos) {
                throw new HpackException("HPACK: a string of " + length + " octets where " + (end - pos) + " remain");
            }
            String s = huffman ? Huffman.decode(b, pos, length) : new String(b, pos, length, StandardCharsets.ISO_8859_1);
            pos += length;
            return s;
        }
    }

    /** The static Huffman code of RFC 7541, Appendix B. */
    static final class Huffman {
        /** Code of each symbol 0-255, right-aligned; EOS (256) is thirty 1 bits and never decodes. */
        static final int[] CODES = {
            0x1ff8, 0x7fffd8, 0xfffffe2, 0xfffffe3, 0xfffffe4, 0xfffffe5, 0xfffffe6, 0xfffffe7,
            0xfffffe8, 0xffffea, 0x3ffffffc, 0xfffffe9, 0xfffffea, 0x3ffffffd, 0xfffffeb, 0xfffffec,
            0xfffffed, 0xfffffee, 0xfffffef, 0xffffff0, 0xffffff1, 0xffffff2, 0x3ffffffe, 0xffffff3,
            0xffffff4, 0xffffff5, 0xffffff6, 0xffffff7, 0xffffff8, 0xffffff9, 0xffffffa, 0xffffffb,
            0x14, 0x3f8, 0x3f9, 0xffa, 0x1ff9, 0x15, 0xf8, 0x7fa,
            0x3fa, 0x3fb, 0xf9, 0x7fb, 0xfa, 0x16, 0x17, 0x18,
            0x0, 0x1, 0x2, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,
            0x1e, 0x1f, 0x5c, 0xfb, 0x7ffc, 0x20, 0xffb, 0x3fc,
            0x1ffa, 0x21, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62,
            0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a,
            0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72,
            0xfc, 0x73, 0xfd, 0x1ffb, 0x7fff0, 0x1ffc, 0x3ffc, 0x22,
            0x7ffd, 0x3, 0x23, 0x4, 0x24, 0x5, 0x25, 0x26,
            0x27, 0x6, 0x74, 0x75, 0x28, 0x29, 0x2a, 0x7,
            0x2b, 0x76, 0x2c, 0x8, 0x9, 0x2d, 0x77, 0x78,
            0x79, 0x7a, 0x7b, 0x7ffe, 0x7fc, 0x3ffd, 0x1ffd, 0xffffffc,
            0xfffe6, 0x3fffd2, 0xfffe7, 0xfffe8, 0x3fffd3, 0x3fffd4, 0x3fffd5, 0x7fffd9,
            0x3fffd6, 0x7fffda, 0x7fffdb, 0x7fffdc, 0x7fffdd, 0x7fffde, 0xffffeb, 0x7fffdf,
            0xffffec, 0xffffed, 0x3fffd7, 0x7fffe0, 0xffffee, 0x7fffe1, 0x7fffe2, 0x7fffe3,
            0x7fffe4, 0x1fffdc, 0x3fffd8, 0x7fffe5, 0x3fffd9, 0x7fffe6, 0x7fffe7, 0xffffef,
            0x3fffda, 0x1fffdd, 0xfffe9, 0x3fffdb, 0x3fffdc, 0x7fffe8, 0x7fffe9, 0x1fffde,
            0x7fffea, 0x3fffdd, 0x3fffde, 0xfffff0, 0x1fffdf, 0x3fffdf, 0x7fffeb, 0x7fffec,
            0x1fffe0, 0x1fffe1, 0x3fffe0, 0x1fffe2, 0x7fffed, 0x3fffe1, 0x7fffee, 0x7fffef,
            0xfffea, 0x3fffe2, 0x3fffe3, 0x3fffe4, 0x7ffff0, 0x3fffe5, 0x3fffe6, 0x7ffff1,
            0x3ffffe0, 0x3ffffe1, 0xfffeb, 0x7fff1, 0x3fffe7, 0x7ffff2, 0x3fffe8, 0x1ffffec,
            0x3ffffe2, 0x3ffffe3, 0x3ffffe4, 0x7ffffde, 0x7ffffdf, 0x3ffffe5, 0xfffff1, 0x1ffffed,
            0x7fff2, 0x1fffe3, 0x3ffffe6, 0x7ffffe0, 0x7ffffe1, 0x3ffffe7, 0x7ffffe2, 0xfffff2,
            0x1fffe4, 0x1fffe5, 0x3ffffe8, 0x3ffffe9, 0xffffffd, 0x7ffffe3, 0x7ffffe4, 0x7ffffe5,
            0xfffec, 0xfffff3, 0xfffed, 0x1fffe6, 0x3fffe9, 0x1fffe7, 0x1fffe8, 0x7ffff3,
            0x3fffea, 0x3fffeb, 0x1ffffee, 0x1ffffef, 0xfffff4, 0xfffff5, 0x3ffffea, 0x7ffff4,
            0x3ffffeb, 0x7ffffe6, 0x3ffffec, 0x3ffffed, 0x7ffffe7, 0x7ffffe8, 0x7ffffe9, 0x7ffffea,
            0x7ffffeb, 0xffffffe, 0x7ffffec, 0x7ffffed, 0x7ffffee, 0x7ffffef, 0x7fffff0, 0x3ffffee,
        };
        /** Bits of each symbol's code. */
        static final byte[] LENGTHS = {
            13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
            28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
            6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
            5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
            13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
            7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
            15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
            6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
            20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
            24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
            22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
            21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
            26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
            19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
            20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
            26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        };
        /** The code as a binary tree: node n's children at 2n and 2n+1; a leaf holds -(symbol + 1); 0 is no child. */
        private static final int[] TREE = tree();

        private Huffman() {}

        private static int[] tree() {
            int[] tree = new int[2 * 2 * 257];
            int nodes = 1; // node 0 is the root
            for (int sym = 0; sym < 256; sym++) {
                int node = 0;
                for (int bit = LENGTHS[sym] - 1; bit >= 0; bit--) {
                    int slot = 2 * node + ((CODES[sym] >>> bit) & 1);
                    if (bit == 0) {
                        tree[slot] = -(sym + 1);
                    } else {
                        if (tree[slot] == 0) {
                            tree[slot] = nodes++;
                        }
                        node = tree[slot];
                    }
                }
            }
            return tree;
        }

        static String decode(byte[] b, int offset, int length) throws HpackException {
            StringBuilder s = new StringBuilder(length * 8 / 5);
            int node = 0;
            int bitsSinceSymbol = 0;
            boolean allOnes = true;
            for (int i = offset; i < offset + length; i++) {
                for (int bit = 7; bit >= 0; bit--) {
                    int one = (b[i] >>> bit) & 1;
                    int next = TREE[2 * node + one];
                    bitsSinceSymbol++;
                    allOnes &= one == 1;
                    if (next < 0) {
                        s.append((char) (-next - 1));
                        node = 0;
                        bitsSinceSymbol = 0;
                        allOnes = true;
                    } else if (next == 0) {
                        throw new HpackException("HPACK: a Huffman string holds EOS or a code that does not exist");
                    } else {
                        node = next;
                    }
                }
            }
            if (bitsSinceSymbol > 7 || !allOnes) {
                throw new HpackException("HPACK: a Huffman string's padding is not the shortest run of 1 bits (EOS's prefix)");
            }
            return s.toString();
        }

        /** Huffman-codes octets (tests use it to write blocks as clients do). */
        static byte[] encode(byte[] octets) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long acc = 0;
            int bits = 0;
            for (byte o : octets) {
                int sym = o & 0xff;
                acc = (acc << LENGTHS[sym]) | CODES[sym];
                bits += LENGTHS[sym];
                while (bits >= 8) {
                    out.write((int) (acc >>> (bits - 8)));
                    bits -= 8;
                }
            }
            if (bits > 0) {
                out.write((int) ((acc << (8 - bits)) | (0xff >>> bits)));
            }
            return out.toByteArray();
        }
    }
}
