package dev.muster.server.http.wire;

import dev.muster.core.scheduler.Victims;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scoring.ScoringPolicy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Answer encoding: shapes, node objects copied for nodeCacheCapable: false, string escaping. */
class WireEncoderTest {
    private static final ExtenderArgs NAMES_REQUEST =
            WireDecoder.decodeExtenderArgs(Fixtures.bytes("nodecache-true/filter-request.json"));
    private static final ExtenderArgs FULL_REQUEST =
            WireDecoder.decodeExtenderArgs(Fixtures.bytes("nodecache-false/filter-request.json"));

    @Test
    void filterFailureCarriesOnlyTheError() {
        byte[] direct = WireEncoder.encodeFilterFailure("ledger not ready");

        assertThat(new String(direct, StandardCharsets.UTF_8)).isEqualTo(
                "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"ledger not ready\"}");
    }

    @Test
    void filterWithNodeNamesIsCompactAndOrdered() {
        Map<String, String> failed = new LinkedHashMap<>();
        failed.put("node-3", "gang ns/pg: 3/8 pods exist");
        failed.put("node-1", "no slot");
        byte[] answer = WireEncoder.encodeFilterResult(NAMES_REQUEST, new FilterResult(List.of("node-2"), failed, Map.of()));

        assertThat(new String(answer, StandardCharsets.UTF_8)).isEqualTo("{\"Nodes\":null,\"NodeNames\":[\"node-2\"],"
                + "\"FailedNodes\":{\"node-3\":\"gang ns/pg: 3/8 pods exist\",\"node-1\":\"no slot\"},"
                + "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    }

    @Test
    void filterWithFullNodesCopiesThePassingNodeObjectsInResultOrder() {
        byte[] answer = WireEncoder.encodeFilterResult(FULL_REQUEST,
                new FilterResult(List.of("node-3", "node-1"), Map.of("node-2", "full"), Map.of()));

        String text = new String(answer, StandardCharsets.UTF_8);
        String node1 = new String(FULL_REQUEST.fullNodes().nodeJson(0), StandardCharsets.UTF_8);
        String node3 = new String(FULL_REQUEST.fullNodes().nodeJson(2), StandardCharsets.UTF_8);
        assertThat(text).isEqualTo("{\"Nodes\":{\"metadata\":{},\"items\":[" + node3 + "," + node1 + "]},\"NodeNames\":null,"
                + "\"FailedNodes\":{\"node-2\":\"full\"},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
        assertThat(JsonTrees.parse(answer)).isInstanceOf(Map.class);
    }

    @Test
    void filterWithFullNodesAndNoPassingNode() {
        byte[] answer = WireEncoder.encodeFilterResult(FULL_REQUEST,
                new FilterResult(List.of(), Map.of(), Map.of("node-1", "a", "node-2", "b", "node-3", "c")));

        assertThat(((Map<?, ?>) JsonTrees.parse(answer)).get("Nodes")).isEqualTo(Map.of("metadata", Map.of(), "items", List.of()));
    }

    @Test
    void filterWithFullNodesRefusesANodeTheRequestDidNotCarry() {
        assertThatThrownBy(() -> WireEncoder.encodeFilterResult(FULL_REQUEST, new FilterResult(List.of("node-9"), Map.of(), Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filter result passes node \"node-9\", which the request did not carry");
    }

    @Test
    void prioritizeIsABareArray() {
        assertThat(new String(WireEncoder.encodePrioritizeResult(List.of(), new int[0]), StandardCharsets.UTF_8)).isEqualTo("[]");
        assertThat(new String(WireEncoder.encodePrioritizeResult(List.of("a", "b"), new int[] {10, 0}), StandardCharsets.UTF_8))
                .isEqualTo("[{\"Host\":\"a\",\"Score\":10},{\"Host\":\"b\",\"Score\":0}]");
    }

    /** The answer is sized from the names' lengths; a name that needs escaping or is not ASCII grows past that, correctly. */
    @Test
    void prioritizeIsExactForAnyNames() {
        List<String> names = List.of("node-0001", "q\"uote", "nöde-ü", "node-0002");
        assertThat(new String(WireEncoder.encodePrioritizeResult(names, new int[] {10, 7, 0, 3}), StandardCharsets.UTF_8)).isEqualTo(
                "[{\"Host\":\"node-0001\",\"Score\":10},{\"Host\":\"q\\\"uote\",\"Score\":7},{\"Host\":\"nöde-ü\",\"Score\":0},"
                        + "{\"Host\":\"node-0002\",\"Score\":3}]");
        assertThat(new String(WireEncoder.encodePrioritizeResult(List.of("node-0001"), new int[] {10}), StandardCharsets.UTF_8))
                .isEqualTo("[{\"Host\":\"node-0001\",\"Score\":10}]");
        for (int score = 0; score <= ScoringPolicy.MAX_EXTENDER_SCORE; score++) { // every score's precomputed piece
            assertThat(WireEncoder.encodePrioritizeResult(List.of("a", "b"), new int[] {score, score})).asString(StandardCharsets.UTF_8)
                    .isEqualTo("[{\"Host\":\"a\",\"Score\":" + score + "},{\"Host\":\"b\",\"Score\":" + score + "}]");
        }
    }

    /**
     * The request's own names are written copied from the request body: the same bytes as from the names' Strings, which
     * names that were not plain ASCII in the body take.
     */
    @Test
    void prioritizeForTheRequestsOwnNamesCopiesThemFromTheBody() {
        String pod = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"uid\":\"u\"},\"spec\":{\"containers\":[]}}";
        List<String> plain = WireDecoder.decodeExtenderArgs(("{\"Pod\":" + pod + ",\"NodeNames\":[\"enc-a\",\"enc-b\",\"\"]}")
                .getBytes(StandardCharsets.UTF_8)).nodeNames();
        List<String> escaped = WireDecoder.decodeExtenderArgs(("{\"Pod\":" + pod + ",\"NodeNames\":[\"enc-a\",\"enc\\u002db\",\"\"]}")
                .getBytes(StandardCharsets.UTF_8)).nodeNames();
        int[] scores = {10, 0, 7};
        String expected = "[{\"Host\":\"enc-a\",\"Score\":10},{\"Host\":\"enc-b\",\"Score\":0},{\"Host\":\"\",\"Score\":7}]";

        assertThat(((dev.muster.core.ledger.NodeList) plain).asciiSource()).isNotNull();
        assertThat(new String(WireEncoder.encodePrioritizeResult(plain, scores), StandardCharsets.UTF_8)).isEqualTo(expected);
        assertThat(((dev.muster.core.ledger.NodeList) escaped).asciiSource()).isNull();
        assertThat(new String(WireEncoder.encodePrioritizeResult(escaped, scores), StandardCharsets.UTF_8)).isEqualTo(expected);
        assertThat(new String(WireEncoder.encodePrioritizeResult(List.copyOf(plain), scores), StandardCharsets.UTF_8)).isEqualTo(expected);
    }

    @Test
    void wholeNumbersAreWrittenDigitByDigit() {
        for (long n : new long[] {0, 7, 10, 99, 100, 123_456_789_012L, Long.MAX_VALUE, -5, Long.MIN_VALUE}) {
            byte[] written = new JsonOutput(1).number(n).toByteArray();
            assertThat(new String(written, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(n));
            if (n >= 0) {
                assertThat(JsonOutput.digits(n)).isEqualTo(written.length);
            }
        }
    }

    @Test
    void scoresOutsideTheExtenderRangeOrNotOnePerNodeAreRefused() {
        assertThatThrownBy(() -> WireEncoder.encodePrioritizeResult(List.of("a"), new int[] {11}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("score 11 for a is outside 0..10");
        assertThatThrownBy(() -> WireEncoder.encodePrioritizeResult(List.of("a", "b"), new int[] {0, -1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("score -1 for b is outside 0..10");
        assertThatThrownBy(() -> WireEncoder.encodePrioritizeResult(List.of("a", "b"), new int[] {0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("1 scores for 2 nodes");
    }

    @Test
    void bindAndPreemptShapes() {
        assertThat(new String(WireEncoder.encodeBindResult(null), StandardCharsets.UTF_8)).isEqualTo("{\"Error\":\"\"}");
        assertThat(new String(WireEncoder.encodeBindResult("gang ns/pg: deadline passed"), StandardCharsets.UTF_8))
                .isEqualTo("{\"Error\":\"gang ns/pg: deadline passed\"}");
        assertThat(new String(WireEncoder.encodePreemptionResult(Map.of()), StandardCharsets.UTF_8))
                .isEqualTo("{\"NodeNameToMetaVictims\":{}}");
        Map<String, Victims> victims = new LinkedHashMap<>();
        victims.put("n1", new Victims(List.of("u1", "u2"), 1));
        victims.put("n2", new Victims(List.of(), 0));
        assertThat(new String(WireEncoder.encodePreemptionResult(victims), StandardCharsets.UTF_8)).isEqualTo(
                "{\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"u1\"},{\"UID\":\"u2\"}],\"NumPDBViolations\":1},"
                        + "\"n2\":{\"Pods\":[],\"NumPDBViolations\":0}}}");
    }

    static Stream<Arguments> escapes() {
        return Stream.of(
                Arguments.of("plain ASCII", "needs 8x(4 cpu, 16Gi), fits 5", "\"needs 8x(4 cpu, 16Gi), fits 5\""),
                Arguments.of("quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\""),
                Arguments.of("named control characters", "\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\""),
                Arguments.of("other control characters", "\u0000\u001f", "\"\\u0000\\u001f\""),
                Arguments.of("DEL and slash stay as they are", "\u007f/", "\"\u007f/\""),
                Arguments.of("two-byte UTF-8", "é", "\"\u00C3\u00A9\""),
                Arguments.of("three-byte UTF-8", "€", "\"\u00E2\u0082\u00AC\""),
                Arguments.of("four-byte UTF-8 from a surrogate pair", "😀", "\"\u00F0\u009F\u0098\u0080\""),
                Arguments.of("lone high surrogate becomes U+FFFD", "a\uD800b", "\"a\u00EF\u00BF\u00BDb\""),
                Arguments.of("lone low surrogate becomes U+FFFD", "\uDC00", "\"\u00EF\u00BF\u00BD\""));
    }

    /** {@code expectedLatin1} spells the expected UTF-8 bytes one char per byte. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("escapes")
    void escapesStrings(String name, String value, String expectedLatin1) {
        byte[] bytes = new JsonOutput(4).string(value).toByteArray();

        assertThat(bytes).isEqualTo(expectedLatin1.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Property(tries = 1000)
    void anyStringSurvivesAJsonRoundTrip(@ForAll String reason, @ForAll String node) {
        byte[] answer = WireEncoder.encodeFilterResult(NAMES_REQUEST,
                new FilterResult(List.of(node), Map.of(node, reason), Map.of()));

        Map<?, ?> tree = (Map<?, ?>) JsonTrees.parse(answer);
        String expectedNode = wellFormed(node);
        assertThat(tree.get("NodeNames")).isEqualTo(List.of(expectedNode));
        assertThat(tree.get("FailedNodes")).isEqualTo(Map.of(expectedNode, wellFormed(reason)));
    }

    @Property(tries = 300)
    void bindErrorsOfAnyTextSurviveAJsonRoundTrip(@ForAll String error) {
        assertThat(JsonTrees.parse(WireEncoder.encodeBindResult(error))).isEqualTo(Map.of("Error", wellFormed(error)));
    }

    /** The string with unpaired surrogates replaced by U+FFFD, as the encoder writes it. */
    private static String wellFormed(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                sb.append(c).append(s.charAt(++i));
            } else {
                sb.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return sb.toString();
    }
}
