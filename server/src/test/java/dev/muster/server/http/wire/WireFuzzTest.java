package dev.muster.server.http.wire;

import dev.muster.core.scheduler.FilterResult;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Thousands of mutated captures thrown at every decoder: each answer is either a value (which then
 * encodes into valid JSON) or a WireFormatException with a message, never any other exception.
 */
class WireFuzzTest {
    enum Kind { FLIP_BIT, SET_BYTE, TRUNCATE, INSERT, DELETE, RECASE_KEY, SWAP_VALUE, DUPLICATE_SLICE }

    /** One mutation; {@code position} and {@code choice} are reduced modulo whatever they index. */
    record Mutation(Kind kind, int position, int choice) {}

    private static final List<byte[]> BODIES = Fixtures.allRequests().stream().map(Fixtures::bytes).toList();

    private static final byte[] INTERESTING_BYTES = {'{', '}', '[', ']', '"', ':', ',', '\\', '0', '-', 'n', ' ', 0, (byte) 0xFF,
            (byte) 0xC3, (byte) 0x80, 'e', '.', 'x'};

    private static final List<String> SNIPPETS = List.of("{", "}", "[", "]", "\"", "null", "1e999", "-1", ",\"x\":1", "\"Pod\":{}",
            "[".repeat(300), "{\"a\":".repeat(300), "\u0000", "\\\"", "{\"Pod\":null}", "true", ",", ":", "\"\\ud800\"",
            "\"\\u0000\"", ",\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"z\"}}]}", ",\"NodeNames\":[\"q\"]",
            ",\"NodeNameToVictims\":{\"n\":{\"Pods\":[{\"metadata\":{\"uid\":\"v\"}}]}}", "é", "😀");

    private static final List<String> VALUES = List.of("null", "0", "-1", "1.5", "{}", "[]", "true", "\"-1\"", "\"abc\"",
            "99999999999999999999", "\"1e400\"", "[null]", "{\"a\":null}", "\"\"", "\"-0.5\"", "\"1Ki\"", "2147483648",
            "\"nvidia.com/gpu\"", "[1,2]", "\"" + "9".repeat(70) + "\"");

    private static final List<Function<byte[], Object>> DECODERS = List.of(
            WireDecoder::decodeExtenderArgs, WireDecoder::decodeBindingArgs, WireDecoder::decodePreemptionArgs);
    private static final List<String> DECODER_NAMES = List.of("ExtenderArgs", "BindingArgs", "PreemptionArgs");

    @Property(tries = 4000)
    void mutatedCapturesDecodeOrFailWithAWireFormatException(@ForAll("mutatedBodies") byte[] body) {
        for (int i = 0; i < DECODERS.size(); i++) {
            Object decoded;
            try {
                decoded = DECODERS.get(i).apply(body);
            } catch (WireFormatException e) {
                assertThat(e.getMessage()).isNotBlank();
                Statistics.label(DECODER_NAMES.get(i)).collect("rejected");
                continue;
            }
            Statistics.label(DECODER_NAMES.get(i)).collect("decoded");
            assertUsable(decoded);
        }
    }

    @Property(tries = 500)
    void unmutatedCapturesWithRandomKeyCaseDecodeLikeTheOriginals(@ForAll("recasedBodies") byte[][] originalAndRecased) {
        Object a = WireDecoder.decodeExtenderArgs(originalAndRecased[0]);
        Object b = WireDecoder.decodeExtenderArgs(originalAndRecased[1]);
        assertThat(((ExtenderArgs) b).pod()).isEqualTo(((ExtenderArgs) a).pod());
        assertThat(((ExtenderArgs) b).nodeNames()).isEqualTo(((ExtenderArgs) a).nodeNames());
    }

    /** A decoded value must be complete enough to answer: its answers are valid JSON. */
    private static void assertUsable(Object decoded) {
        if (decoded instanceof ExtenderArgs args) {
            assertThat(args.pod().pod().request().anyNegative()).isFalse();
            byte[] filter = WireEncoder.encodeFilterResult(args, new FilterResult(args.nodeNames(), Map.of(), Map.of()));
            // node objects go back verbatim, so duplicate keys in their skipped parts (legal for Go) may remain
            JsonTrees.wellFormed(filter);
            for (int i = 0; args.nodesGivenInFull() && i < args.fullNodes().size(); i++) {
                byte[] node = args.fullNodes().nodeJson(i);
                assertThat(node[0]).isEqualTo((byte) '{');
                assertThat(node[node.length - 1]).isEqualTo((byte) '}');
                JsonTrees.wellFormed(node);
            }
            JsonTrees.wellFormed(WireEncoder.encodePrioritizeResult(args.nodeNames(), fives(args.nodeNames().size())));
        } else if (decoded instanceof PreemptionArgs args) {
            JsonTrees.wellFormed(WireEncoder.encodePreemptionResult(args.nodeNameToMetaVictims()));
        } else {
            assertThat(decoded).isInstanceOf(BindingArgs.class);
            BindingArgs b = (BindingArgs) decoded;
            assertThat(List.of(b.podName(), b.podNamespace(), b.podUID(), b.node())).doesNotContain("");
        }
    }

    private static int[] fives(int n) {
        int[] scores = new int[n];
        java.util.Arrays.fill(scores, 5);
        return scores;
    }

    @Provide
    Arbitrary<byte[]> mutatedBodies() {
        Arbitrary<Mutation> mutation = Combinators.combine(
                Arbitraries.of(Kind.class), Arbitraries.integers().between(0, Integer.MAX_VALUE), Arbitraries.integers().between(0, 1 << 16))
                .as(Mutation::new);
        return Combinators.combine(Arbitraries.of(BODIES), mutation.list().ofMinSize(1).ofMaxSize(4))
                .as((body, mutations) -> {
                    byte[] b = body.clone();
                    for (Mutation m : mutations) {
                        b = apply(b, m);
                    }
                    return b;
                });
    }

    @Provide
    Arbitrary<byte[][]> recasedBodies() {
        List<byte[]> extenderArgs = Fixtures.EXTENDER_ARGS_REQUESTS.stream().map(Fixtures::bytes).toList();
        return Combinators.combine(Arbitraries.of(extenderArgs), Arbitraries.longs())
                .as((body, seed) -> new byte[][] {body, JsonTrees.renameKeys(body, k -> recaseIfExtenderKey(k, seed))});
    }

    private static String recaseIfExtenderKey(String key, long seed) {
        if (!List.of("Pod", "Nodes", "NodeNames").contains(key)) {
            return key;
        }
        StringBuilder sb = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean upper = ((seed >>> ((i + key.length()) % 64)) & 1) == 1;
            sb.append(upper ? Character.toUpperCase(c) : Character.toLowerCase(c));
        }
        return sb.toString();
    }

    static byte[] apply(byte[] b, Mutation m) {
        int n = b.length;
        int at = n == 0 ? 0 : m.position() % n;
        return switch (m.kind()) {
            case FLIP_BIT -> {
                if (n > 0) {
                    b[at] ^= (byte) (1 << (m.choice() % 8));
                }
                yield b;
            }
            case SET_BYTE -> {
                if (n > 0) {
                    b[at] = INTERESTING_BYTES[m.choice() % INTERESTING_BYTES.length];
                }
                yield b;
            }
            case TRUNCATE -> Arrays.copyOf(b, m.position() % (n + 1));
            case INSERT -> splice(b, at, 0, utf8(SNIPPETS.get(m.choice() % SNIPPETS.size())));
            case DELETE -> splice(b, at, Math.min(n - at, 1 + m.choice() % 40), new byte[0]);
            case RECASE_KEY -> recaseKey(b, m);
            case SWAP_VALUE -> swapValue(b, m);
            case DUPLICATE_SLICE -> {
                int length = Math.min(n - at, 1 + m.choice() % 200);
                byte[] slice = Arrays.copyOfRange(b, at, at + length);
                yield splice(b, n == 0 ? 0 : (m.choice() * 31) % n, 0, slice);
            }
        };
    }

    /** Flips the case of the letters of one quoted key (a string followed by ':'). */
    private static byte[] recaseKey(byte[] b, Mutation m) {
        List<int[]> keys = new ArrayList<>();
        for (int[] s : strings(b)) {
            if (s[1] < b.length && b[s[1]] == ':') {
                keys.add(s);
            }
        }
        if (keys.isEmpty()) {
            return b;
        }
        int[] key = keys.get(m.choice() % keys.size());
        for (int i = key[0] + 1; i < key[1] - 1; i++) {
            byte c = b[i];
            if (c >= 'a' && c <= 'z') {
                b[i] = (byte) (c - 32);
            } else if (c >= 'A' && c <= 'Z') {
                b[i] = (byte) (c + 32);
            }
        }
        return b;
    }

    /** Replaces one string value (a string preceded by ':' or in an array) with a value of another type. */
    private static byte[] swapValue(byte[] b, Mutation m) {
        List<int[]> values = new ArrayList<>();
        for (int[] s : strings(b)) {
            if (s[1] >= b.length || b[s[1]] != ':') {
                values.add(s);
            }
        }
        if (values.isEmpty()) {
            return b;
        }
        int[] value = values.get(m.position() % values.size());
        return splice(b, value[0], value[1] - value[0], utf8(VALUES.get(m.choice() % VALUES.size())));
    }

    /** [start, end) of every JSON string literal, quotes included (a rough scan, good enough for mutation). */
    private static List<int[]> strings(byte[] b) {
        List<int[]> found = new ArrayList<>();
        int i = 0;
        while (i < b.length) {
            if (b[i] != '"') {
                i++;
                continue;
            }
            int start = i++;
            while (i < b.length && b[i] != '"') {
                i += b[i] == '\\' ? 2 : 1;
            }
            i++;
            if (i <= b.length) {
                found.add(new int[] {start, i});
            }
        }
        return found;
    }

    private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(b.length + insert.length);
        out.write(b, 0, at);
        out.write(insert, 0, insert.length);
        out.write(b, at + remove, b.length - at - remove);
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
