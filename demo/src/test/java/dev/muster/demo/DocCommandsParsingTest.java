package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which lines of a Markdown document are commands, and how they split into words. */
class DocCommandsParsingTest {
    @TempDir
    Path dir;

    @Test
    void shellBlocksAndIndentedBlocksAreCommandsOtherBlocksAreNot() throws Exception {
        Path doc = Files.writeString(dir.resolve("doc.md"), """
                Text with `mvn inline` that is not a command.

                    mvn -B verify      # indented block

                ```sh
                # a comment line
                mvn -q -pl demo -am verify \\
                  -Dmuster.args="demo --scenario idle-queue"   # continued
                docker tag a:1 b:1 && docker push b:1
                curl -s localhost:8080/metrics | grep muster_queue
                ```

                ```yaml
                    indented: yaml is no command
                kind: PodGroup
                ```

                ```
                NAME  STATE   output is no command
                ```
                """);

        List<DocCommands.Command> commands = DocCommands.of(doc);

        assertThat(commands).extracting(DocCommands.Command::words).containsExactly(
                List.of("mvn", "-B", "verify"),
                List.of("mvn", "-q", "-pl", "demo", "-am", "verify", "-Dmuster.args=demo --scenario idle-queue"),
                List.of("docker", "tag", "a:1", "b:1"), List.of("docker", "push", "b:1"),
                List.of("curl", "-s", "localhost:8080/metrics"), List.of("grep", "muster_queue"));
        assertThat(commands.get(1).line()).as("where the command starts").isEqualTo(7);
    }

    @Test
    void aHashInsideQuotesOrAWordIsNoComment() {
        assertThat(DocCommands.withoutComment("echo \"a # b\" c#d # e")).isEqualTo("echo \"a # b\" c#d ");
    }
}
