package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MainTest {
    static Stream<Arguments> usageErrors() {
        return Stream.of(
                Arguments.of("an unknown command", List.of("launch"), "unknown command \"launch\""),
                Arguments.of("a scenario file that does not exist", List.of("demo", "--scenario", "no/such.yaml"), "bad scenario: no/such.yaml: no such file"),
                Arguments.of("an unknown flag", List.of("demo", "--sped", "3"), "unknown flag --sped"),
                Arguments.of("a speed of zero", List.of("--speed", "0"), "--speed must be more than 0"),
                Arguments.of("serve without --embedded", List.of("serve"), "serve runs only on the embedded cluster here: write serve --embedded"),
                Arguments.of("gang without a name", List.of("gang"), "which gang? write gang NAMESPACE/NAME"));
    }

    @ParameterizedTest(name = "{0} exits 2 and says why")
    @MethodSource("usageErrors")
    void usageErrorsExitTwoWithAMessage(String name, List<String> args, String message) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int exit = Main.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("helps")
    void helpPrintsUsage(String name, List<String> args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int exit = Main.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);

        assertThat(exit).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("serve --embedded", "queues [--watch]", "gang NAMESPACE/NAME");
    }

    static Stream<Arguments> helps() {
        return Stream.of(Arguments.of("--help", List.of("--help")), Arguments.of("help", List.of("help")), Arguments.of("demo -h", List.of("demo", "-h")));
    }
}
