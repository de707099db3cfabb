package dev.muster.common.http;

import dev.muster.common.http.Hpack.HeaderField;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The HPACK decoder (RFC 7541) of one HTTP/2 connection: reads the requests' header blocks completely — indexed fields
 * from the static and the dynamic table, literals with incremental indexing, without indexing and never indexed,
 * dynamic table size updates, prefixed integers and string literals raw or {@linkplain Huffman Huffman-coded} — and
 * stops a header list over its limit. Names and values come out as ISO-8859-1 strings, one char per octet, so that no
 * byte is lost (a UTF-8 value arrives as its octets).
 *
 * <p>It decodes the blocks of one connection in order: the dynamic table carries over from block to block. Not
 * thread-safe (the connection's reading thread owns it). After an {@link HpackException} the state is undefined and the
 * decoder must not be used again.
 */
final class HpackDecoder {
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
    HpackDecoder(int maxTableSize, int maxHeaderListSize) {
        if (maxTableSize < 0 || maxHeaderListSize < 0) {
            throw new IllegalArgumentException("negative limit: " + maxTableSize + ", " + maxHeaderListSize);
        }
        this.maxTableSize = maxTableSize;
        this.maxHeaderListSize = maxHeaderListSize;
        this.capacity = maxTableSize;
        this.entries = new HeaderField[Math.max(1, maxTableSize / 32)];
    }

    /** A decoder with a header list limit of 64 KiB. */
    HpackDecoder(int maxTableSize) {
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
        if (index <= Hpack.STATIC_TABLE.size()) {
            return Hpack.STATIC_TABLE.get(index - 1);
        }
        int dynamic = index - Hpack.STATIC_TABLE.size();
        if (dynamic > count) {
            throw new HpackException("HPACK: index " + index + " is beyond the static and dynamic tables ("
                    + (Hpack.STATIC_TABLE.size() + count) + " entries)");
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
                ? Huffman.decode(buf, pos, length)
                : new String(buf, pos, length, StandardCharsets.ISO_8859_1);
        pos += length;
        return s;
    }
}
