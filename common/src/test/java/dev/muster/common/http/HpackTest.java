package dev.muster.common.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.muster.common.http.Hpack.HeaderField;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

class HpackTest {

    // ---- RFC 7541, Appendix C ----

    @Test
    void c2_1LiteralWithIndexing() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096);
        assertEquals(List.of(f("custom-key", "custom-header")),
                decode(decoder, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"));
        assertEquals(List.of(f("custom-key", "custom-header")), decoder.dynamicTable());
        assertEquals(55, decoder.tableSize());
    }

    @Test
    void c2_2LiteralWithoutIndexing() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096);
        assertEquals(List.of(f(":path", "/sample/path")), decode(decoder, "040c 2f73 616d 706c 652f 7061 7468"));
        assertEquals(List.of(), decoder.dynamicTable());
        assertEquals(0, decoder.tableSize());
    }

    @Test
    void c2_3LiteralNeverIndexed() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096);
        assertEquals(List.of(f("password", "secret")), decode(decoder, "1008 7061 7373 776f 7264 0673 6563 7265 74"));
        assertEquals(0, decoder.tableSize());
    }

    @Test
    void c2_4Indexed() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096);
        assertEquals(List.of(f(":method", "GET")), decode(decoder, "82"));
        assertEquals(0, decoder.tableSize());
    }

    @Test
    void c3RequestsWithoutHuffman() throws HpackException {
        requests(new String[] {
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"});
    }

    @Test
    void c4RequestsWithHuffman() throws HpackException {
        requests(new String[] {
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"});
    }

    /** C.3 and C.4: the same three requests, the dynamic table after each. */
    private static void requests(String[] blocks) throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096);
        HeaderField authority = f(":authority", "www.example.com");
        HeaderField cacheControl = f("cache-control", "no-cache");
        HeaderField custom = f("custom-key", "custom-value");
        List<HeaderField> first = List.of(f(":method", "GET"), f(":scheme", "http"), f(":path", "/"), authority);
        assertEquals(first, decode(decoder, blocks[0]));
        assertEquals(List.of(authority), decoder.dynamicTable());
        assertEquals(57, decoder.tableSize());

        List<HeaderField> second = new ArrayList<>(first);
        second.add(cacheControl);
        assertEquals(second, decode(decoder, blocks[1]));
        assertEquals(List.of(cacheControl, authority), decoder.dynamicTable());
        assertEquals(110, decoder.tableSize());

        assertEquals(List.of(f(":method", "GET"), f(":scheme", "https"), f(":path", "/index.html"), authority, custom),
                decode(decoder, blocks[2]));
        assertEquals(List.of(custom, cacheControl, authority), decoder.dynamicTable());
        assertEquals(164, decoder.tableSize());
    }

    /** C.6: responses with Huffman in a 256-octet table, so that entries are evicted. */
    @Test
    void c6ResponsesWithHuffmanAndEvictions() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(256);
        HeaderField status302 = f(":status", "302");
        HeaderField status307 = f(":status", "307");
        HeaderField cacheControl = f("cache-control", "private");
        HeaderField date21 = f("date", "Mon, 21 Oct 2013 20:13:21 GMT");
        HeaderField location = f("location", "https://www.example.com");
        assertEquals(List.of(status302, cacheControl, date21, location), decode(decoder,
                "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad"
                        + " 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"));
        assertEquals(List.of(location, date21, cacheControl, status302), decoder.dynamicTable());
        assertEquals(222, decoder.tableSize());

        assertEquals(List.of(status307, cacheControl, date21, location), decode(decoder, "4883 640e ffc1 c0bf"));
        assertEquals(List.of(status307, location, date21, cacheControl), decoder.dynamicTable());
        assertEquals(222, decoder.tableSize());

        HeaderField date22 = f("date", "Mon, 21 Oct 2013 20:13:22 GMT");
        HeaderField gzip = f("content-encoding", "gzip");
        HeaderField cookie = f("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1");
        assertEquals(List.of(f(":status", "200"), cacheControl, date22, location, gzip, cookie), decode(decoder,
                "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2"
                        + " e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106"
                        + " 3d50 07"));
        assertEquals(List.of(cookie, gzip, date22), decoder.dynamicTable());
        assertEquals(215, decoder.tableSize());
    }

    @Test
    void staticTableHasTheRfcsEntries() {
        assertEquals(61, Hpack.STATIC_TABLE.size());
        assertEquals(f(":authority", ""), Hpack.STATIC_TABLE.get(0));
        assertEquals(f(":status", "200"), Hpack.STATIC_TABLE.get(7));
        assertEquals(f("accept-encoding", "gzip, deflate"), Hpack.STATIC_TABLE.get(15));
        assertEquals(f("www-authenticate", ""), Hpack.STATIC_TABLE.get(60));
    }

    // ---- the response encoder ----

    @Test
    void statusUsesTheStaticTableOrALiteral() throws HpackException {
        for (int status : new int[] {200, 204, 206, 304, 400, 404, 500}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Hpack.status(out, status);
            assertEquals(1, out.size(), "status " + status);
            assertEquals(List.of(f(":status", Integer.toString(status))), decode(new HpackDecoder(4096), out));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Hpack.status(out, 302);
        assertArrayEquals(HexFormat.of().parseHex("0803333032"), out.toByteArray());
        assertThrows(IllegalArgumentException.class, () -> Hpack.status(new ByteArrayOutputStream(), 1000));
        assertThrows(IllegalArgumentException.class, () -> Hpack.status(new ByteArrayOutputStream(), 99));
    }

    @Test
    void responseRoundTrip() throws HpackException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Hpack.status(out, 503);
        Hpack.literal(out, "content-type", "application/json");
        Hpack.literal(out, "x-empty", "");
        Hpack.literal(out, "x-long", "v".repeat(300)); // a length past the 7-bit prefix
        Hpack.literal(out, "x-utf8", "grüße");
        HpackDecoder decoder = new HpackDecoder(4096);
        assertEquals(List.of(
                        f(":status", "503"),
                        f("content-type", "application/json"),
                        f("x-empty", ""),
                        f("x-long", "v".repeat(300)),
                        // the decoder hands out octets, one char each
                        f("x-utf8", new String("grüße".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1))),
                decode(decoder, out));
        assertEquals(0, decoder.tableSize());
        assertEquals(0x00, out.toByteArray()[5]); // after :status 503, a literal without indexing with a new name
    }

    @Test
    void literalRejectsNamesThatAreNotLowerCase() {
        assertThrows(IllegalArgumentException.class, () -> Hpack.literal(new ByteArrayOutputStream(), "Content-Type", "x"));
        assertThrows(IllegalArgumentException.class, () -> Hpack.literal(new ByteArrayOutputStream(), "", "x"));
        assertThrows(IllegalArgumentException.class, () -> Hpack.literal(new ByteArrayOutputStream(), "a b", "x"));
    }

    // ---- errors ----

    @Test
    void indexZero() {
        assertError("index 0", new HpackDecoder(4096), "80");
    }

    @Test
    void indexBeyondTheTables() throws HpackException {
        assertError("index 62 is beyond the static and dynamic tables (61 entries)", new HpackDecoder(4096), "be");
        HpackDecoder decoder = new HpackDecoder(4096);
        decode(decoder, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d");
        assertError("index 63 is beyond the static and dynamic tables (62 entries)", decoder, "bf");
    }

    @Test
    void huffmanEos() {
        // literal without indexing, name "a", value Huffman-coded: 30 ones (EOS) and 2 more
        assertError("EOS", new HpackDecoder(4096), "0001 6184 ffff ffff");
    }

    @Test
    void huffmanPaddingLongerThanSevenBits() {
        assertError("padding of 8 bits", new HpackDecoder(4096), "0001 6181 ff");
        // 'a' (00011), then 11 ones
        assertError("padding of 11 bits", new HpackDecoder(4096), "0001 6182 1fff");
    }

    @Test
    void huffmanPaddingNotAllOnes() {
        // 'a' (00011), then 000: a prefix of '0' (00000), not of EOS
        assertError("padding not all 1s", new HpackDecoder(4096), "0001 6181 18");
    }

    @Test
    void tableSizeUpdateAboveTheMaximum() throws HpackException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Hpack.writeInt(out, 0x20, 5, 4097);
        assertError("size update to 4097 octets, above the 4096", new HpackDecoder(4096), HexFormat.of().formatHex(out.toByteArray()));
        HpackDecoder decoder = new HpackDecoder(4096);
        decode(decoder, "3fe1 1f"); // 4096 is allowed
        assertEquals(4096, decoder.capacity());
    }

    @Test
    void tableSizeUpdateOnlyAtTheStartOfABlock() throws HpackException {
        assertError("size update after the first header field", new HpackDecoder(4096), "8220");
        HpackDecoder decoder = new HpackDecoder(4096);
        decode(decoder, "2030 82"); // two updates (0, then 16) before the first field are fine
        assertEquals(16, decoder.capacity());
    }

    @Test
    void tableSizeUpdateEvicts() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096);
        decode(decoder, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d");
        assertEquals(57, decoder.tableSize());
        decode(decoder, "20");
        assertEquals(0, decoder.tableSize());
        assertEquals(List.of(), decoder.dynamicTable());
        assertError("index 62 is beyond", decoder, "be");
    }

    @Test
    void entryLargerThanTheTableEmptiesIt() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(64);
        decode(decoder, "4001 6101 62"); // a: b, 34 octets
        assertEquals(34, decoder.tableSize());
        // c: 40 times 'x', 73 octets: no room even in an empty table
        assertEquals(List.of(f("c", "x".repeat(40))), decode(decoder, "4001 6328" + "78".repeat(40)));
        assertEquals(List.of(), decoder.dynamicTable());
        assertEquals(0, decoder.tableSize());
    }

    @Test
    void truncatedInteger() {
        assertError("integer truncated", new HpackDecoder(4096), "ff");
        assertError("integer truncated", new HpackDecoder(4096), "ff80");
    }

    @Test
    void integerOverflow() {
        assertError("integer beyond 2147483647", new HpackDecoder(4096), "ffff ffff ff0f");
        assertError("longer than 5 continuation octets", new HpackDecoder(4096), "ff80 8080 8080 8001");
    }

    @Test
    void truncatedString() {
        assertError("string literal of 5 octets but only 2 left", new HpackDecoder(4096), "0005 6162");
        assertError("string literal missing", new HpackDecoder(4096), "0001 61");
        assertError("string literal missing", new HpackDecoder(4096), "00");
    }

    @Test
    void headerListTooLarge() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 100);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Hpack.literal(out, "x", "v".repeat(67)); // 1 + 67 + 32 = 100: just fits
        assertEquals(1, decode(decoder, out).size());
        Hpack.literal(out, "y", "");
        assertError("header list larger than 100 octets", decoder, HexFormat.of().formatHex(out.toByteArray()));
    }

    @Test
    void decodesASliceOfTheArray() throws HpackException {
        assertEquals(List.of(f(":method", "GET")), decode(new HpackDecoder(4096), HexFormat.of().parseHex("ff82ff"), 1, 1));
    }

    // ---- Huffman ----

    @Test
    void huffmanRoundTripOfRandomOctets() throws HpackException {
        Random random = new Random(7541);
        for (int i = 0; i < 2000; i++) {
            byte[] octets = new byte[random.nextInt(100)];
            random.nextBytes(octets);
            String s = new String(octets, StandardCharsets.ISO_8859_1);
            byte[] coded = huffman(s);
            assertEquals(s, Huffman.decode(coded, 0, coded.length));
        }
    }

    @Test
    void huffmanEncoderGivesTheRfcsBytes() {
        assertEquals("f1e3c2e5f23a6ba0ab90f4ff", HexFormat.of().formatHex(huffman("www.example.com")));
        assertEquals("a8eb10649cbf", HexFormat.of().formatHex(huffman("no-cache")));
        assertEquals("25a849e95ba97d7f", HexFormat.of().formatHex(huffman("custom-key")));
        assertEquals("25a849e95bb8e8b4bf", HexFormat.of().formatHex(huffman("custom-value")));
    }

    @Test
    void huffmanCodeIsTheRfcs() {
        assertEquals(0x1ff8, Huffman.code(0));
        assertEquals(13, Huffman.length(0));
        assertEquals(0x0, Huffman.code('0'));
        assertEquals(5, Huffman.length('0'));
        assertEquals(0x3ffffee, Huffman.code(255));
        assertEquals(26, Huffman.length(255));
        assertEquals(0x3fffffff, Huffman.code(Huffman.EOS));
        assertEquals(30, Huffman.length(Huffman.EOS));
    }

    // ---- property: a test-side encoder with incremental indexing and Huffman ----

    @Property(tries = 300)
    void randomBlocksDecodeToTheirFields(
            @ForAll("connections") List<List<HeaderField>> blocks, @ForAll long seed) throws HpackException {
        Random random = new Random(seed);
        int max = new int[] {0, 64, 256, 4096}[random.nextInt(4)];
        HpackDecoder decoder = new HpackDecoder(max, Integer.MAX_VALUE);
        Encoder encoder = new Encoder(max, random);
        for (List<HeaderField> block : blocks) {
            assertEquals(block, decode(decoder, encoder.encode(block)));
            assertEquals(encoder.table, decoder.dynamicTable());
            assertEquals(encoder.tableSize, decoder.tableSize());
            assertTrue(decoder.tableSize() <= decoder.capacity() && decoder.capacity() <= max);
        }
    }

    @Provide
    Arbitrary<List<List<HeaderField>>> connections() {
        Arbitrary<String> staticNames = Arbitraries.of(Hpack.STATIC_TABLE.stream().map(HeaderField::name).toList());
        Arbitrary<String> tokens = Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz-").ofMinLength(1).ofMaxLength(12);
        Arbitrary<String> octets = Arbitraries.strings().withCharRange('\u0000', '\u00ff').ofMaxLength(40);
        Arbitrary<String> names = Arbitraries.frequencyOf(
                Tuple.of(3, staticNames), Tuple.of(3, tokens), Tuple.of(1, octets));
        Arbitrary<String> values = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.of("", "GET", "/", "200", "gzip, deflate", "no-cache")),
                Tuple.of(3, octets),
                Tuple.of(1, Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(300)));
        Arbitrary<HeaderField> fields = Combinators.combine(names, values).as(HeaderField::new);
        return fields.list().ofMaxSize(12).list().ofMinSize(1).ofMaxSize(8);
    }

    /** An encoder that uses every representation, the dynamic table and Huffman coding, chosen at random. */
    private static final class Encoder {
        private final int max;
        private final Random random;
        private int capacity;
        final List<HeaderField> table = new ArrayList<>(); // newest first
        int tableSize;

        Encoder(int max, Random random) {
            this.max = max;
            this.random = random;
            this.capacity = max;
        }

        byte[] encode(List<HeaderField> fields) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int updates = random.nextInt(10) == 0 ? 1 + random.nextInt(2) : 0; updates > 0; updates--) {
                capacity = random.nextInt(max + 1);
                Hpack.writeInt(out, 0x20, 5, capacity);
                evictTo(capacity);
            }
            for (HeaderField field : fields) {
                int exact = indexOf(field, true);
                int name = indexOf(field, false);
                int choice = random.nextInt(4);
                if (exact != 0 && choice == 0) {
                    Hpack.writeInt(out, 0x80, 7, exact);
                    continue;
                }
                int nameIndex = name != 0 && random.nextBoolean() ? name : 0;
                switch (choice) {
                    case 1 -> Hpack.writeInt(out, 0x00, 4, nameIndex);
                    case 2 -> Hpack.writeInt(out, 0x10, 4, nameIndex);
                    default -> Hpack.writeInt(out, 0x40, 6, nameIndex);
                }
                if (nameIndex == 0) {
                    string(out, field.name());
                }
                string(out, field.value());
                if (choice != 1 && choice != 2) {
                    add(field);
                }
            }
            return out.toByteArray();
        }

        private int indexOf(HeaderField field, boolean exact) {
            for (int i = 0; i < Hpack.STATIC_TABLE.size(); i++) {
                HeaderField entry = Hpack.STATIC_TABLE.get(i);
                if (entry.name().equals(field.name()) && (!exact || entry.value().equals(field.value()))) {
                    return i + 1;
                }
            }
            for (int i = 0; i < table.size(); i++) {
                HeaderField entry = table.get(i);
                if (entry.name().equals(field.name()) && (!exact || entry.value().equals(field.value()))) {
                    return Hpack.STATIC_TABLE.size() + i + 1;
                }
            }
            return 0;
        }

        private void string(ByteArrayOutputStream out, String s) {
            if (random.nextBoolean()) {
                byte[] coded = huffman(s);
                Hpack.writeInt(out, 0x80, 7, coded.length);
                out.writeBytes(coded);
            } else {
                Hpack.writeInt(out, 0x00, 7, s.length());
                out.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
            }
        }

        private void add(HeaderField field) {
            if (field.size() > capacity) {
                evictTo(0);
                return;
            }
            evictTo(capacity - field.size());
            table.addFirst(field);
            tableSize += field.size();
        }

        private void evictTo(int size) {
            while (tableSize > size) {
                tableSize -= table.removeLast().size();
            }
        }
    }

    // ---- helpers ----

    /** Huffman-codes one octet per char, padding with the 1s that start EOS. */
    static byte[] huffman(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long bits = 0;
        int count = 0;
        for (int i = 0; i < s.length(); i++) {
            int symbol = s.charAt(i);
            bits = (bits << Huffman.length(symbol)) | Huffman.code(symbol);
            count += Huffman.length(symbol);
            while (count >= 8) {
                count -= 8;
                out.write((int) (bits >>> count));
            }
        }
        if (count > 0) {
            out.write((int) ((bits << (8 - count)) | (0xff >>> count)));
        }
        return out.toByteArray();
    }

    private static HeaderField f(String name, String value) {
        return new HeaderField(name, value);
    }

    /** The fields of one block, given as hex with optional spaces ("8286 84be"). */
    private static List<HeaderField> decode(HpackDecoder decoder, String hex) throws HpackException {
        return decode(decoder, HexFormat.of().parseHex(hex.replace(" ", "")));
    }

    private static List<HeaderField> decode(HpackDecoder decoder, ByteArrayOutputStream out) throws HpackException {
        return decode(decoder, out.toByteArray());
    }

    private static List<HeaderField> decode(HpackDecoder decoder, byte[] block) throws HpackException {
        return decode(decoder, block, 0, block.length);
    }

    private static List<HeaderField> decode(HpackDecoder decoder, byte[] block, int offset, int length) throws HpackException {
        List<HeaderField> fields = new ArrayList<>();
        decoder.decode(block, offset, length, (n, v) -> fields.add(f(n, v)));
        return fields;
    }

    private static void assertError(String expected, HpackDecoder decoder, String hex) {
        HpackException e = assertThrows(HpackException.class, () -> decode(decoder, hex));
        assertTrue(e.getMessage().startsWith("HPACK: ") && e.getMessage().contains(expected), e.getMessage());
    }
}
