package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code java -jar server/target/muster-server-*.jar}, as users type it, starts the runnable jar: the glob matches
 * it alone (the test helpers' jar other modules' tests use lies in {@code target/test-jar/}). Runs where the reactor
 * packaged the modules before this one ({@code mvn verify}); skipped where it did not ({@code mvn test}).
 */
class PackagedJarsTest {
    private static final Path REPO = Path.of(System.getProperty("muster.repo", "..")).toAbsolutePath().normalize();
    private static final String VERSION = System.getProperty("muster.version", "0.1.0-SNAPSHOT");

    @ParameterizedTest(name = "{0}/target/muster-{0}-*.jar is the runnable jar alone")
    @ValueSource(strings = {"server", "controller", "demo", "core", "common"})
    void theGlobUsersTypeMatchesTheModulesJarAlone(String module) throws IOException {
        Path target = REPO.resolve(module).resolve("target");
        Path jar = target.resolve("muster-" + module + "-" + VERSION + ".jar");
        assumeTrue(Files.isRegularFile(jar), module + " was not packaged in this build");
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:muster-" + module + "-*.jar");
        try (Stream<Path> files = Files.list(target)) {
            List<Path> matched = files.filter(f -> glob.matches(f.getFileName())).toList();
            assertThat(matched).containsExactly(jar);
        }
    }
}
