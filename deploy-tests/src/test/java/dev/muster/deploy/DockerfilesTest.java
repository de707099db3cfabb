package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;

/**
 * The image Dockerfiles (no container engine runs the tests) agree with what Maven builds and what
 * the chart expects: the jar name, the user the chart runs as, the ports the chart probes; and their class data
 * archive recipe works with this JDK.
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

        assertThat(instruction(dockerfile, "FROM")).containsExactly("eclipse-temurin:" + IMAGE_JAVA + "-jre");
        assertThat(instruction(dockerfile, "ARG")).containsExactly("VERSION=" + version);
        String jar = "/app/" + artifactId + ".jar";
        assertThat(instruction(dockerfile, "COPY")).containsExactly(
                "target/lib/ /app/lib/",
                "target/" + artifactId + "-${VERSION}.jar " + jar,
                "src/main/cds/classlist /app/classlist");
        assertThat(instruction(dockerfile, "ENTRYPOINT")).containsExactly(
                "[\"java\", \"-XX:SharedArchiveFile=/app/muster.jsa\", \"-XX:+UseCompactObjectHeaders\", \"-XX:MaxRAMPercentage=75\", \"-XX:InitialRAMPercentage=12.5\", \"-jar\", \""
                        + jar + "\"]");

        Manifest deployment = Chart.render(Chart.Install.defaults()).deployment(component);
        Object chartUser = Tree.at(deployment.container(), "securityContext", "runAsUser");
        assertThat(instruction(dockerfile, "USER")).containsExactly(chartUser + ":" + chartUser);

        List<String> exposed = List.of(instruction(dockerfile, "EXPOSE").get(0).split(" "));
        List<String> chartPorts = Tree.maps(deployment.container(), "ports").stream()
                .map(p -> String.valueOf(p.get("containerPort"))).toList();
        assertThat(exposed).containsExactlyInAnyOrderElementsOf(chartPorts);
    }

    /**
     * The image's class data archive, made as its Dockerfile makes it: the COPY instructions replayed into a folder
     * standing for /app (from the module's Maven output and its class list), the RUN line's dump run by this JVM (the
     * image's Java release, {@link #IMAGE_JAVA}), then the entrypoint started with {@code -Xshare:on} (which refuses
     * to start when the archive cannot be mapped) to print its help: Muster's launcher comes from the archive. The
     * dump must not miss any of Muster's own classes the list names (a list older than a rename: regenerate it as
     * docs/benchmarks.md, "The start", says).
     */
    @ParameterizedTest(name = "{0}/Dockerfile")
    @MethodSource("images")
    void theImagesClassDataArchiveIsMadeFromTheClassListAndMapsAtStart(String module, String component, @TempDir Path app)
            throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() == IMAGE_JAVA, "skipped: an archive only maps into the JVM release "
                + "that made it; the images run Java " + IMAGE_JAVA + ", these tests run on " + Runtime.version());
        Path root = RepoLayout.find().root();
        Path moduleDir = root.resolve(module);
        String dockerfile = Files.readString(moduleDir.resolve("Dockerfile"));
        String version = pomText(root.resolve("pom.xml"), "version");
        for (String copy : instruction(dockerfile, "COPY")) {
            String[] fromTo = copy.replace("${VERSION}", version).split(" ");
            Path from = moduleDir.resolve(fromTo[0]);
            assertThat(from).as("built by mvn package before this module's tests").exists();
            Path to = app.resolve(fromTo[1].substring("/app/".length()));
            if (Files.isDirectory(from)) {
                Files.createDirectories(to);
                try (Stream<Path> files = Files.list(from)) {
                    for (Path f : files.toList()) {
                        Files.copy(f, to.resolve(f.getFileName().toString()));
                    }
                }
            } else {
                Files.copy(from, to);
            }
        }
        List<String> run = instruction(dockerfile, "RUN").stream().filter(r -> r.startsWith("java ")).toList();
        assertThat(run).hasSize(1);
        ProcessResult dump = java(app, List.of(run.get(0).split(" ")));
        assertThat(dump.exitCode()).as(dump.output()).isZero();
        assertThat(dump.output()).as("classes of Muster's the list names but the jars no longer have")
                .doesNotContainPattern("(?i)(cannot find|preload warning).*dev/muster/");
        assertThat(app.resolve("muster.jsa")).isNotEmptyFile();

        List<String> entrypoint = List.of(instruction(dockerfile, "ENTRYPOINT").get(0).replaceAll("[\\[\\]\"]", "").split(",\\s*"));
        List<String> start = new java.util.ArrayList<>(entrypoint);
        start.addAll(1, List.of("-Xshare:on", "-Xlog:class+load=info"));
        start.add("--help");
        ProcessResult help = java(app, start);
        assertThat(help.exitCode()).as(help.output()).isZero();
        assertThat(help.output()).contains("dev.muster.common.launch.Launcher source: shared objects file");
    }

    /** The image's Java feature release: its base image and the release this class data archive is made by. */
    private static final int IMAGE_JAVA = 25;

    private record ProcessResult(int exitCode, String output) {}

    /** Runs an image command line ({@code java ...}, paths under /app) with this JVM, /app standing for {@code app}. */
    private static ProcessResult java(Path app, List<String> imageCommand) throws Exception {
        assertThat(imageCommand.get(0)).isEqualTo("java");
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : imageCommand.subList(1, imageCommand.size())) {
            cmd.add(arg.replace("/app/", app.toString() + "/"));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        return new ProcessResult(p.waitFor(), out);
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
