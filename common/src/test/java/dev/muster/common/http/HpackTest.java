package dev.muster.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** HPACK against RFC 7541's own examples (Appendix C), its error cases, and random blocks written as clients write them. */
class HpackTest {
    private static List<String> decode(Hpack.Decoder d, String hex) throws HpackException {
        byte[] b = HexFormat.of().parseHex(hex.replace(" ", ""));
        List<String> fields = new ArrayList<>();
        d.decode(b, 0, b.length, (n, v) -> fields.add(n + ": " + v));
        return fields;
    }

    @Test
    void literalWithIndexingEntersTheTable() throws Exception { // C.2.1
        Hpack.Decoder d = new Hpack.Decoder(4096, 65536);
        assertThat(decode(d, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572")).containsExactly("custom-key: custom-header");
        assertThat(d.tableSize()).isEqualTo(55);
    }

    @Test
    void literalWithoutIndexingAndNeverIndexedLeaveTheTableEmpty() throws Exception { // C.2.2, C.2.3
        Hpack.Decoder d = new Hpack.Decoder(4096, 65536);
        assertThat(decode(d, "040c 2f73 616d 706c 652f 7061 7468")).containsExactly(":path: /sample/path");
        assertThat(decode(d, "1008 7061 7373 776f 7264 0673 6563 7265 74")).containsExactly("password: secret");
        assertThat(d.tableSize()).isZero();
        assertThat(decode(d, "82")).containsExactly(":method: GET"); // C.2.4
    }

    @Test
    void threeRequestsWithoutHuffman() throws Exception { // C.3
        Hpack.Decoder d = new Hpack.Decoder(4096, 65536);
        assertThat(decode(d, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(d.tableSize()).isEqualTo(57);
        assertThat(decode(d, "8286 84be 5808 6e6f 2d63 6163 6865"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(d.tableSize()).isEqualTo(110);
        assertThat(decode(d, "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"))
                .containsExactly(":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value");
        assertThat(d.tableSize()).isEqualTo(164);
        assertThat(d.entries()).extracting(e -> e[0] + ": " + e[1])
                .containsExactly("custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com");
    }

    @Test
    void threeRequestsWithHuffman() throws Exception { // C.4
        Hpack.Decoder d = new Hpack.Decoder(4096, 65536);
        assertThat(decode(d, "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(decode(d, "8286 84be 5886 a8eb 1064 9cbf"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(decode(d, "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"))
                .containsExactly(":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value");
        assertThat(d.tableSize()).isEqualTo(164);
    }

    @Test
    void aSmallTableEvictsTheOldestEntries() throws Exception {
        Hpack.Decoder d = new Hpack.Decoder(100, 65536);
        decode(d, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"); // 55 octets
        decode(d, "4003 6f6e 6503 6f6e 65"); // one: one, 38 octets: 93 in all
        decode(d, "4003 7477 6f03 7477 6f"); // two: two evicts custom-key
        assertThat(d.entries()).extracting(e -> e[0]).containsExactly("two", "one");
        assertThat(d.tableSize()).isEqualTo(76);
        assertThat(decode(d, "20")).isEmpty(); // a size update to 0 empties it
        assertThat(d.tableSize()).isZero();
    }

    @Test
    void answersDecodeAsWritten() throws Exception {
        for (int status : new int[] {200, 404, 500, 403, 413, 503}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Hpack.status(out, status);
            Hpack.literal(out, "content-type", "application/json");
            Hpack.literal(out, "retry-after", "é".repeat(200)); // a value over 127 octets: a multi-byte length
            List<String> fields = new ArrayList<>();
            new Hpack.Decoder(4096, 65536).decode(out.toByteArray(), 0, out.size(), (n, v) -> fields.add(n + ": " + v));
            assertThat(fields).containsExactly(":status: " + status, "content-type: application/json",
                    "retry-after: " + new String("é".repeat(200).getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
        }
        assertThatThrownBy(() -> Hpack.literal(new ByteArrayOutputStream(), "Content-Type", "x"))
                .hasMessageContaining("lower case");
    }

    @Test
    void badBlocksAreRefusedNamingTheProblem() {
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "80")).hasMessageContaining("index 0");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "c6")).hasMessageContaining("index 70 is beyond");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "3fe21f")).hasMessageContaining("exceeds the 4096");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "82 20")).hasMessageContaining("may only open a block");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "7f")).hasMessageContaining("ends inside");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "7fffffffff0f")).hasMessageContaining("larger than 2^31-1");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "0003 6f6e")).hasMessageContaining("3 octets where 2 remain");
        // Huffman: "a" is 00011 and its padding 111; 00011 000 pads with zeros, and thirty 1 bits are EOS
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "0081 18 00")).hasMessageContaining("padding");
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "0084 ffffffff 00")).hasMessageContaining("EOS");
        // a whole byte of padding is too long
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 65536), "0082 1fff 00")).hasMessageContaining("padding");
        String big = "00 7f01" + "61".repeat(128) + "00"; // a name of 128 octets and an empty value: 160 octets
        assertThatThrownBy(() -> decode(new Hpack.Decoder(4096, 100), big)).hasMessageContaining("exceeds 100 octets");
    }

    @Property(tries = 300)
    void randomBlocksWrittenAsClientsWriteThemDecodeToTheSameFields(@ForAll("blocks") List<List<String[]>> blocks) throws Exception {
        Hpack.Decoder d = new Hpack.Decoder(256, 1 << 20);
        List<String[]> mirror = new ArrayList<>(); // the encoder's idea of the dynamic table, newest first
        for (List<String[]> fields : blocks) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (String[] f : fields) {
                int kind = Math.floorMod(f[0].hashCode() ^ f[1].hashCode(), 3);
                boolean huffman = f[1].length() % 2 == 0;
                int indexed = indexOf(mirror, f);
                if (indexed > 0) {
                    Hpack.integer(out, 0x80, 7, indexed);
                } else if (kind == 0) { // with incremental indexing
                    Hpack.integer(out, 0x40, 6, 0);
                    string(out, f[0], huffman);
                    string(out, f[1], !huffman);
                    mirrorAdd(mirror, f, 256);
                } else {
                    Hpack.integer(out, kind == 1 ? 0x00 : 0x10, 4, 0);
                    string(out, f[0], huffman);
                    string(out, f[1], huffman);
                }
            }
            List<String[]> got = new ArrayList<>();
            d.decode(out.toByteArray(), 0, out.size(), (n, v) -> got.add(new String[] {n, v}));
            assertThat(got).usingElementComparator((a, b) -> a[0].equals(b[0]) && a[1].equals(b[1]) ? 0 : 1).isEqualTo(fields);
            assertThat(d.tableSize()).isLessThanOrEqualTo(256);
            assertThat(d.entries()).usingElementComparator((a, b) -> a[0].equals(b[0]) && a[1].equals(b[1]) ? 0 : 1).isEqualTo(mirror);
        }
    }

    @Provide
    Arbitrary<List<List<String[]>>> blocks() {
        Arbitrary<String> names = Arbitraries.strings().withCharRange('a', 'z').withChars('-').ofMinLength(1).ofMaxLength(12);
        Arbitrary<String> values = Arbitraries.strings().withCharRange((char) 0, (char) 255).ofMaxLength(40);
        Arbitrary<String[]> field = Combinators.combine(names, values).as((n, v) -> new String[] {n, v});
        return field.list().ofMaxSize(8).list().ofMaxSize(6);
    }

    private static int indexOf(List<String[]> mirror, String[] f) {
        for (int i = 0; i < mirror.size(); i++) {
            if (mirror.get(i)[0].equals(f[0]) && mirror.get(i)[1].equals(f[1])) {
                return 62 + i;
            }
        }
        return 0;
    }

    private static void mirrorAdd(List<String[]> mirror, String[] f, int max) {
        int size = f[0].length() + f[1].length() + 32;
        int total = mirror.stream().mapToInt(e -> e[0].length() + e[1].length() + 32).sum();
        if (size > max) {
            mirror.clear();
            return;
        }
        while (total + size > max) {
            String[] e = mirror.remove(mirror.size() - 1);
            total -= e[0].length() + e[1].length() + 32;
        }
        mirror.add(0, f);
    }

    private static void string(ByteArrayOutputStream out, String s, boolean huffman) {
        byte[] octets = s.getBytes(StandardCharsets.ISO_8859_1);
        if (huffman) {
            octets = Hpack.Huffman.encode(octets);
        }
        Hpack.integer(out, huffman ? 0x80 : 0x00, 7, octets.length);
        out.writeBytes(octets);
    }
}
