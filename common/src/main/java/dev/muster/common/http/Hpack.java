package dev.muster.common.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * HPACK, the header compression of HTTP/2 (RFC 7541), for a small server.
 *
 * <p>{@link Decoder} reads the requests' header blocks completely: indexed fields from the static and the dynamic
 * table, literals with incremental indexing, without indexing and never indexed, dynamic table size updates, prefixed
 * integers and string literals raw or Huffman-coded. Names and values come out as ISO-8859-1 strings, one char per
 * octet, so that no byte is lost (a UTF-8 value arrives as its octets).
 *
 * <p>The encoding side ({@link #status}, {@link #literal}) deliberately stays minimal: it never adds to the client's
 * dynamic table (only the static table and literals without indexing) and never Huffman-codes, so the client's
 * decoder state stays trivial and nothing here has to track it.
 */
final class Hpack {
    private Hpack() {}

    /** A header field; its {@link #size} is the one the dynamic table counts (RFC 7541 section 4.1). */
    record HeaderField(String name, String value) {
        HeaderField {
            Objects.requireNonNull(name);
            Objects.requireNonNull(value);
        }

        /** The name's and the value's octets plus 32; the strings hold one octet per char. */
        int size() {
            return name.length() + value.length() + 32;
        }
    }

    /** RFC 7541, Appendix A: index 1 is element 0. */
    static final List<HeaderField> STATIC_TABLE = List.of(
            new HeaderField(":authority", ""),
            new HeaderField(":method", "GET"),
            new HeaderField(":method", "POST"),
            new HeaderField(":path", "/"),
            new HeaderField(":path", "/index.html"),
            new HeaderField(":scheme", "http"),
            new HeaderField(":scheme", "https"),
            new HeaderField(":status", "200"),
            new HeaderField(":status", "204"),
            new HeaderField(":status", "206"),
            new HeaderField(":status", "304"),
            new HeaderField(":status", "400"),
            new HeaderField(":status", "404"),
            new HeaderField(":status", "500"),
            new HeaderField("accept-charset", ""),
            new HeaderField("accept-encoding", "gzip, deflate"),
            new HeaderField("accept-language", ""),
            new HeaderField("accept-ranges", ""),
            new HeaderField("accept", ""),
            new HeaderField("access-control-allow-origin", ""),
            new HeaderField("age", ""),
            new HeaderField("allow", ""),
            new HeaderField("authorization", ""),
            new HeaderField("cache-control", ""),
            new HeaderField("content-disposition", ""),
            new HeaderField("content-encoding", ""),
            new HeaderField("content-language", ""),
            new HeaderField("content-length", ""),
            new HeaderField("content-location", ""),
            new HeaderField("content-range", ""),
            new HeaderField("content-type", ""),
            new HeaderField("cookie", ""),
            new HeaderField("date", ""),
            new HeaderField("etag", ""),
            new HeaderField("expect", ""),
            new HeaderField("expires", ""),
            new HeaderField("from", ""),
            new HeaderField("host", ""),
            new HeaderField("if-match", ""),
            new HeaderField("if-modified-since", ""),
            new HeaderField("if-none-match", ""),
            new HeaderField("if-range", ""),
            new HeaderField("if-unmodified-since", ""),
            new HeaderField("last-modified", ""),
            new HeaderField("link", ""),
            new HeaderField("location", ""),
            new HeaderField("max-forwards", ""),
            new HeaderField("proxy-authenticate", ""),
            new HeaderField("proxy-authorization", ""),
            new HeaderField("range", ""),
            new HeaderField("referer", ""),
            new HeaderField("refresh", ""),
            new HeaderField("retry-after", ""),
            new HeaderField("server", ""),
            new HeaderField("set-cookie", ""),
            new HeaderField("strict-transport-security", ""),
            new HeaderField("transfer-encoding", ""),
            new HeaderField("user-agent", ""),
            new HeaderField("vary", ""),
            new HeaderField("via", ""),
            new HeaderField("www-authenticate", ""));

    // ---- encoding (responses) ----

    /**
     * Writes {@code :status}: the static table's entry for 200, 204, 206, 304, 400, 404 and 500, otherwise a literal
     * without indexing that names static entry 8 and carries the three digits.
     */
    static void status(ByteArrayOutputStream out, int status) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("not a three-digit HTTP status: " + status);
        }
        int index = switch (status) {
            case 200 -> 8;
            case 204 -> 9;
            case 206 -> 10;
            case 304 -> 11;
            case 400 -> 12;
            case 404 -> 13;
            case 500 -> 14;
            default -> 0;
        };
        if (index != 0) {
            writeInt(out, 0x80, 7, index); // indexed header field
        } else {
            writeInt(out, 0x00, 4, 8); // literal without indexing, name :status from the static table
            writeString(out, Integer.toString(status).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * Writes a literal header field without indexing with a new name: both strings raw, the value as UTF-8.
     *
     * @throws IllegalArgumentException if the name is empty or has a character other than visible ASCII, or an
     *     upper-case letter (HTTP/2 requires lower-case names)
     */
    static void literal(ByteArrayOutputStream out, String name, String value) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= 0x20 || c >= 0x7f || (c >= 'A' && c <= 'Z')) {
                throw new IllegalArgumentException("not a lower-case header name: " + name);
            }
        }
        out.write(0x00);
        writeString(out, name.getBytes(StandardCharsets.US_ASCII));
        writeString(out, value.getBytes(StandardCharsets.UTF_8));
    }

    /** An integer with an N-bit prefix (RFC 7541 section 5.1); {@code flags} are the first octet's other bits. */
    static void writeInt(ByteArrayOutputStream out, int flags, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(flags | value);
            return;
        }
        out.write(flags | max);
        value -= max;
        while (value >= 0x80) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /** A raw (not Huffman-coded) string literal. */
    private static void writeString(ByteArrayOutputStream out, byte[] octets) {
        writeInt(out, 0x00, 7, octets.length);
        out.writeBytes(octets);
    }

    // ---- decoding (requests) ----

    /**
     * Decodes the header blocks of one connection, in order: the dynamic table carries over from block to block. Not
     * thread-safe. After an {@link HpackException} the state is undefined and the decoder must not be used again.
     */
    static final class Decoder {
        private final int maxTableSize;
        private final int maxHeaderListSize;
        /** The table's current limit, set by the peer's size updates; never above {@link #maxTableSize}. */
        private int capacity;
        /** The dynamic table as a ring: the newest entry just before {@link #next}, {@link #count} entries. */
        private final HeaderField[] entries;
        private int next;
        private int count;
        private int tableSize;

        // the block being decoded
        private byte[] buf;
        private int pos;
        private int end;

        /**
         * @param maxTableSize the SETTINGS_HEADER_TABLE_SIZE this side advertised (HTTP/2's default is 4096): the
         *     largest dynamic table the peer may ask for
         * @param maxHeaderListSize the largest decoded header list, counted as name + value + 32 octets per field
         */
        Decoder(int maxTableSize, int maxHeaderListSize) {
            if (maxTableSize < 0 || maxHeaderListSize < 0) {
                throw new IllegalArgumentException("negative limit: " + maxTableSize + ", " + maxHeaderListSize);
            }
            this.maxTableSize = maxTableSize;
            this.maxHeaderListSize = maxHeaderListSize;
            this.capacity = maxTableSize;
            this.entries = new HeaderField[Math.max(1, maxTableSize / 32)];
        }

        /** A decoder with a header list limit of 64 KiB. */
        Decoder(int maxTableSize) {
            this(maxTableSize, 64 * 1024);
        }

        /**
         * Decodes one complete header block (HEADERS and its CONTINUATIONs joined), handing each field to {@code sink}
         * in order.
         */
        void decode(byte[] block, int offset, int length, BiConsumer<String, String> sink) throws HpackException {
            Objects.checkFromIndexSize(offset, length, block.length);
            buf = block;
            pos = offset;
            end = offset + length;
            long listSize = 0;
            boolean atStart = true;
            try {
                while (pos < end) {
                    int b = buf[pos] & 0xff;
                    HeaderField field;
                    if ((b & 0x80) != 0) { // indexed header field
                        field = field(readInt(7));
                    } else if ((b & 0x40) != 0) { // literal with incremental indexing
                        field = readLiteral(6);
                        add(field);
                    } else if ((b & 0x20) != 0) { // dynamic table size update
                        if (!atStart) {
                            throw new HpackException("HPACK: dynamic table size update after the first header field"
                                    + " of the block");
                        }
                        int size = readInt(5);
                        if (size > maxTableSize) {
                            throw new HpackException("HPACK: dynamic table size update to " + size
                                    + " octets, above the " + maxTableSize + " advertised");
                        }
                        capacity = size;
                        evictTo(capacity);
                        continue;
                    } else { // literal without indexing (0000) or never indexed (0001)
                        field = readLiteral(4);
                    }
                    atStart = false;
                    listSize += field.size();
                    if (listSize > maxHeaderListSize) {
                        throw new HpackException("HPACK: header list larger than " + maxHeaderListSize + " octets");
                    }
                    sink.accept(field.name(), field.value());
                }
            } finally {
                buf = null;
            }
        }

        /** The dynamic table's size in octets (RFC 7541 section 4.1). */
        int tableSize() {
            return tableSize;
        }

        /** The dynamic table's current limit, as last set by the peer (initially the advertised maximum). */
        int capacity() {
            return capacity;
        }

        /** The dynamic table, newest entry (index 62) first. */
        List<HeaderField> dynamicTable() {
            List<HeaderField> table = new ArrayList<>(count);
            for (int i = 1; i <= count; i++) {
                table.add(entries[Math.floorMod(next - i, entries.length)]);
            }
            return table;
        }

        private HeaderField field(int index) throws HpackException {
            if (index == 0) {
                throw new HpackException("HPACK: index 0 does not name a header field");
            }
            if (index <= STATIC_TABLE.size()) {
                return STATIC_TABLE.get(index - 1);
            }
            int dynamic = index - STATIC_TABLE.size();
            if (dynamic > count) {
                throw new HpackException("HPACK: index " + index + " is beyond the static and dynamic tables ("
                        + (STATIC_TABLE.size() + count) + " entries)");
            }
            return entries[Math.floorMod(next - dynamic, entries.length)];
        }

        /** A literal representation whose name index has an N-bit prefix; 0 means the name follows as a string. */
        private HeaderField readLiteral(int prefixBits) throws HpackException {
            int nameIndex = readInt(prefixBits);
            String name = nameIndex == 0 ? readString() : field(nameIndex).name();
            return new HeaderField(name, readString());
        }

        /** Adds an entry, first evicting the oldest ones; one larger than the table only empties it (section 4.4). */
        private void add(HeaderField field) {
            int size = field.size();
            if (size > capacity) {
                evictTo(0);
                return;
            }
            evictTo(capacity - size);
            entries[next] = field;
            next = (next + 1) % entries.length;
            count++;
            tableSize += size;
        }

        private void evictTo(int size) {
            while (tableSize > size) {
                int oldest = Math.floorMod(next - count, entries.length);
                tableSize -= entries[oldest].size();
                entries[oldest] = null;
                count--;
            }
        }

        /** An integer with an N-bit prefix (section 5.1), at most {@link Integer#MAX_VALUE}. */
        private int readInt(int prefixBits) throws HpackException {
            int max = (1 << prefixBits) - 1;
            int value = buf[pos++] & max;
            if (value < max) {
                return value;
            }
            long total = max;
            for (int shift = 0; ; shift += 7) {
                if (pos >= end) {
                    throw new HpackException("HPACK: integer truncated at the end of the block");
                }
                if (shift > 28) {
                    throw new HpackException("HPACK: integer longer than 5 continuation octets");
                }
                int b = buf[pos++] & 0xff;
                total += (long) (b & 0x7f) << shift;
                if (total > Integer.MAX_VALUE) {
                    throw new HpackException("HPACK: integer beyond " + Integer.MAX_VALUE);
                }
                if ((b & 0x80) == 0) {
                    return (int) total;
                }
            }
        }

        /** A string literal (section 5.2), raw or Huffman-coded. */
        private String readString() throws HpackException {
            if (pos >= end) {
                throw new HpackException("HPACK: string literal missing at the end of the block");
            }
            boolean huffman = (buf[pos] & 0x80) != 0;
            int length = readInt(7);
            if (length > end - pos) {
                throw new HpackException("HPACK: string literal of " + length + " octets but only " + (end - pos)
                        + " left in the block");
            }
            String s = huffman
                    ? huffmanDecode(buf, pos, length)
                    : new String(buf, pos, length, StandardCharsets.ISO_8859_1);
            pos += length;
            return s;
        }
    }

    // ---- Huffman code (RFC 7541, Appendix B) ----

    /**
     * Decodes a Huffman-coded string to one char per octet. The code may end with at most 7 bits of padding, all 1s
     * (a prefix of EOS); EOS itself must not appear.
     */
    static String huffmanDecode(byte[] in, int offset, int length) throws HpackException {
        byte[] out = new byte[length * 8 / 5]; // the shortest code has 5 bits
        int n = 0;
        int node = 0;
        int pending = 0; // bits read since the last symbol
        boolean allOnes = true;
        for (int i = offset; i < offset + length; i++) {
            int octet = in[i] & 0xff;
            for (int bit = 7; bit >= 0; bit--) {
                int b = (octet >>> bit) & 1;
                int child = HUFFMAN_TREE[2 * node + b];
                pending++;
                allOnes &= b == 1;
                if (child >= 0) {
                    node = child;
                    continue;
                }
                int symbol = ~child;
                if (symbol == EOS) {
                    throw new HpackException("HPACK: EOS inside a Huffman-coded string");
                }
                out[n++] = (byte) symbol;
                node = 0;
                pending = 0;
                allOnes = true;
            }
        }
        if (pending > 7) {
            throw new HpackException("HPACK: Huffman padding of " + pending + " bits, more than 7");
        }
        if (!allOnes) {
            throw new HpackException("HPACK: Huffman padding not all 1s");
        }
        return new String(out, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** The symbol that ends a Huffman-coded string: a decoder must reject it. */
    static final int EOS = 256;

    /** The code of each symbol, 0-255 and EOS (256), right-aligned in its length: RFC 7541, Appendix B. */
    private static final int[] HUFFMAN_CODES = {
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
        0x3fffffff
    };

    /** The bit length of each code in {@link #HUFFMAN_CODES}: RFC 7541, Appendix B. */
    private static final byte[] HUFFMAN_LENGTHS = {
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
        30
    };

    /** The code of a symbol (0-255, or {@link #EOS}), right-aligned. */
    static int huffmanCode(int symbol) {
        return HUFFMAN_CODES[symbol];
    }

    /** The bit length of a symbol's code. */
    static int huffmanLength(int symbol) {
        return HUFFMAN_LENGTHS[symbol];
    }

    /**
     * The decoding tree: node k's children at 2k (bit 0) and 2k+1 (bit 1); a child ≥ 0 is an inner node, a child
     * {@code ~symbol} a leaf. Node 0 is the root; a complete code of 257 symbols has 256 inner nodes.
     */
    private static final int[] HUFFMAN_TREE = huffmanTree();

    private static int[] huffmanTree() {
        int[] tree = new int[2 * EOS]; // 0 = not yet set: the root is no one's child
        int nodes = 1;
        for (int symbol = 0; symbol <= EOS; symbol++) {
            int code = HUFFMAN_CODES[symbol];
            int node = 0;
            for (int bit = HUFFMAN_LENGTHS[symbol] - 1; bit > 0; bit--) {
                int slot = 2 * node + ((code >>> bit) & 1);
                if (tree[slot] == 0) {
                    tree[slot] = nodes++;
                } else if (tree[slot] < 0) {
                    throw new IllegalStateException("Huffman code of " + symbol + " extends another code");
                }
                node = tree[slot];
            }
            int slot = 2 * node + (code & 1);
            if (tree[slot] != 0) {
                throw new IllegalStateException("Huffman code of " + symbol + " is a prefix of another code");
            }
            tree[slot] = ~symbol;
        }
        for (int child : tree) {
            if (child == 0) {
                throw new IllegalStateException("Huffman code incomplete");
            }
        }
        return tree;
    }
}
