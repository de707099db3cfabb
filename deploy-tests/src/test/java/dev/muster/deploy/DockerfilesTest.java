package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;

/**
 * The image Dockerfiles (no container engine runs the tests) agree with what Maven builds and what
 * the chart expects: the jar name, the user the chart runs as, the ports the chart probes.
 */
class DockerfilesTest {

    static Stream<Arguments> images() {
        return Stream.of(
                Arguments.of("server", "extender"),
                Arguments.of("controller", "controller"));
    }

    @ParameterizedTest(name = "{0}/Dockerfile")
    @MethodSource("images")
    void dockerfileCopiesTheMavenArtifactsAndRunsAsTheChartsUser(String module, String component) throws Exception {
        Path root = RepoLayout.find().root();
        String dockerfile = Files.readString(root.resolve(module + "/Dockerfile"));
        String artifactId = pomText(root.resolve(module + "/pom.xml"), "artifactId");
        String version = pomText(root.resolve("pom.xml"), "version");

        assertThat(instruction(dockerfile, "FROM")).containsExactly("eclipse-temurin:21-jre");
        assertThat(instruction(dockerfile, "ARG")).containsExactly("VERSION=" + version);
        String jar = "/app/" + artifactId + ".jar";
        assertThat(instruction(dockerfile, "COPY")).containsExactly(
                "target/lib/ /app/lib/",
                "target/" + artifactId + "-${VERSION}.jar " + jar);
        assertThat(instruction(dockerfile, "ENTRYPOINT"))
                .containsExactly("[\"java\", \"-XX:MaxRAMPercentage=75\", \"-jar\", \"" + jar + "\"]");

        Manifest deployment = Chart.render(Chart.Install.defaults()).deployment(component);
        Object chartUser = Tree.at(deployment.container(), "securityContext", "runAsUser");
        assertThat(instruction(dockerfile, "USER")).containsExactly(chartUser + ":" + chartUser);

        List<String> exposed = List.of(instruction(dockerfile, "EXPOSE").get(0).split(" "));
        List<String> chartPorts = Tree.maps(deployment.container(), "ports").stream()
                .map(p -> String.valueOf(p.get("containerPort"))).toList();
        assertThat(exposed).containsExactlyInAnyOrderElementsOf(chartPorts);
    }

    /** Arguments of every {@code keyword} instruction, continuation lines joined. */
    private static List<String> instruction(String dockerfile, String keyword) {
        String joined = dockerfile.replaceAll("\\\\\\n", " ");
        Matcher m = Pattern.compile("(?m)^" + keyword + "\\s+(.+)$").matcher(joined);
        return m.results().map(r -> r.group(1).trim()).toList();
    }

    /** Text of the project's own top-level element (not the parent's). */
    private static String pomText(Path pom, String element) throws Exception {
        Document doc = DocumentBuilderFactory.newDefaultInstance().newDocumentBuilder().parse(pom.toFile());
        var children = doc.getDocumentElement().getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (element.equals(children.item(i).getNodeName())) {
                return children.item(i).getTextContent().trim();
            }
        }
        throw new AssertionError(pom + " has no top-level <" + element + ">");
    }
}
