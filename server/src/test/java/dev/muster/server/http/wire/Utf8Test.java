package dev.muster.server.http.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The check on node objects that go back verbatim: it must agree with the JDK's strict decoder on every byte string.
 */
class Utf8Test {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("", -1),
                Arguments.of("7b7d", -1), // {}
                Arguments.of("c3a9", -1), // é
                Arguments.of("e282ac", -1), // €
                Arguments.of("f09f9880", -1), // 😀
                Arguments.of("f48fbfbf", -1), // U+10FFFF
                Arguments.of("22ff7970", 1), // a key of a node with 0xFF where its 't' was
                Arguments.of("41c3", 1), // a sequence cut short
                Arguments.of("c0af", 0), // an overlong '/'
                Arguments.of("e080af", 0), // an overlong '/' in three bytes
                Arguments.of("eda080", 0), // a surrogate
                Arguments.of("f4908080", 0), // above U+10FFFF
                Arguments.of("80", 0), // a lone continuation byte
                Arguments.of("e28241", 0)); // a continuation byte missing
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void findsTheFirstByteThatStartsNoWellFormedSequence(String hex, int expected) {
        byte[] b = HexFormat.of().parseHex(hex);
        assertThat(Utf8.firstInvalid(b, 0, b.length)).isEqualTo(expected);
    }

    @Property(tries = 3000)
    void agreesWithTheJdksStrictDecoder(@ForAll byte[] bytes) {
        boolean jdkAccepts;
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
            jdkAccepts = true;
        } catch (java.nio.charset.CharacterCodingException e) {
            jdkAccepts = false;
        }
        assertThat(Utf8.firstInvalid(bytes, 0, bytes.length) < 0).isEqualTo(jdkAccepts);
    }
}
