package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.config.Flags;
import dev.muster.common.testing.ConsoleRun;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.ScenarioReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MainTest {
    @TempDir
    Path startedIn;

    static Stream<Arguments> usageErrors() {
        return Stream.of(
                Arguments.of("an unknown command", List.of("launch"), "unknown command \"launch\""),
                Arguments.of("a scenario file that does not exist", List.of("demo", "--scenario", "/no/such.yaml"),
                        "bad scenario: /no/such.yaml: no such file: /no/such.yaml"),
                Arguments.of("an unknown flag", List.of("demo", "--sped", "3"), "unknown flag --sped"),
                Arguments.of("a speed of zero", List.of("--speed", "0"), "--speed must be more than 0"),
                Arguments.of("serve without --embedded", List.of("serve"), "serve runs only on the embedded cluster here: write serve --embedded"),
                Arguments.of("gang without a name", List.of("gang"), "which gang? write gang NAMESPACE/NAME"));
    }

    @ParameterizedTest(name = "{0} exits 2 and says why")
    @MethodSource("usageErrors")
    void usageErrorsExitTwoWithAMessage(String name, List<String> args, String message) throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) -> Main.run(args, Map.of(), startedIn, out, err));

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).as("one line, no usage table").singleElement().asString().contains(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("helps")
    void helpPrintsUsage(String name, List<String> args) throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) -> Main.run(args, Map.of(), startedIn, out, err));

        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("serve --embedded", "queues [--watch]", "gang NAMESPACE/NAME");
    }

    @Test
    void aRelativeScenarioIsReadFromTheDirectoryTheUserStartedFrom() throws Exception {
        Files.createDirectories(startedIn.resolve("scenarios"));
        Files.copy(Path.of("src/test/resources/scenarios/e2e.yaml"), startedIn.resolve("scenarios/small.yaml"));

        Scenario s = DemoCommand.scenario(Flags.parse(List.of("--scenario", "scenarios/small.yaml"), Set.of("scenario", "speed"), Map.of()), startedIn);

        assertThat(s.name()).isEqualTo(ScenarioReader.load(Path.of("src/test/resources/scenarios/e2e.yaml")).name());
    }

    @Test
    void aMissingRelativeScenarioNamesThePathTriedAndWhereItWasResolved() throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) -> Main.run(List.of("demo", "--scenario", "my.yaml"), Map.of(), startedIn, out, err));

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("muster-demo: bad scenario: my.yaml: no such file: " + startedIn.resolve("my.yaml")
                + " (relative to " + startedIn + ", where muster-demo was started); the built-in scenarios are default, contended, idle-queue, preemption\n");
    }

    @Test
    void aBuiltInScenarioIsFoundByNameOrByItsPathInTheSourceTree() {
        for (String given : List.of("idle-queue", "idle-queue.yaml", "demo/src/main/resources/scenarios/idle-queue.yaml")) {
            Scenario s = DemoCommand.scenario(Flags.parse(List.of("--scenario", given), Set.of("scenario", "speed"), Map.of()), startedIn);

            assertThat(s.name()).as(given).isEqualTo(ScenarioReader.builtIn("/scenarios/idle-queue.yaml").name());
        }
    }

    @Test
    void aRelativeReportPathIsResolvedLikeTheScenario() {
        assertThat(DemoCommand.resolve("out/r.html", startedIn)).isEqualTo(startedIn.resolve("out/r.html"));
        assertThat(DemoCommand.resolve("/tmp/r.html", startedIn)).isEqualTo(Path.of("/tmp/r.html"));
    }

    static Stream<Arguments> helps() {
        return Stream.of(Arguments.of("--help", List.of("--help")), Arguments.of("help", List.of("help")), Arguments.of("demo -h", List.of("demo", "-h")));
    }
}
