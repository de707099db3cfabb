package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The release workflow, checked as far as it can be without GitHub: its structure (trigger, permissions, steps), that
 * what it names exists (modules, Dockerfiles, the chart's image lines it rewrites), that every step's shell parses
 * ({@code bash -n}) and, where shellcheck is installed, passes it. It is not run here: no registry is pushed to.
 */
class ReleaseWorkflowTest {
    private static final Path ROOT = RepoLayout.find().root();
    private static final Path WORKFLOW = ROOT.resolve(".github/workflows/release.yml");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workflow() throws IOException {
        return new Yaml().load(Files.readString(WORKFLOW));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> steps() throws IOException {
        Map<String, Object> jobs = (Map<String, Object>) workflow().get("jobs");
        assertThat(jobs).containsOnlyKeys("release");
        return (List<Map<String, Object>>) ((Map<String, Object>) jobs.get("release")).get("steps");
    }

    private static String runs() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Map<String, Object> s : steps()) {
            if (s.get("run") != null) {
                sb.append(s.get("run")).append('\n');
            }
        }
        return sb.toString();
    }

    @Test
    @SuppressWarnings("unchecked")
    void runsOnAVersionTagWithTheLeastItNeeds() throws IOException {
        Map<String, Object> w = workflow();
        // YAML 1.1 reads the key `on` as true
        Map<String, Object> on = (Map<String, Object>) (w.containsKey("on") ? w.get("on") : w.get(Boolean.TRUE));
        assertThat(on).containsOnlyKeys("push");
        assertThat((Map<String, Object>) on.get("push")).containsExactly(Map.entry("tags", List.of("v*")));
        assertThat((Map<String, Object>) w.get("permissions")).containsExactly(Map.entry("contents", "read"), Map.entry("packages", "write"));
        assertThat(steps()).filteredOn(s -> s.containsKey("uses")).extracting(s -> (String) s.get("uses"))
                .containsExactly("actions/checkout@v4", "actions/setup-java@v4", "azure/setup-helm@v4");
    }

    @Test
    void buildsBothImagesFromTheirDockerfilesAndPushesThemAndTheChartToGhcr() throws IOException {
        String run = runs();
        assertThat(run).contains("mvn -B -pl server,controller,deploy-tests -am verify")
                .contains("for module in server controller; do", "docker build --build-arg \"VERSION=$MAVEN_VERSION\" -t \"$image\" \"$module/\"",
                        "docker push \"$image\"", "helm package charts/muster --destination dist",
                        "helm push \"dist/muster-$VERSION.tgz\" \"oci://$REGISTRY/$OWNER/charts\"")
                .contains("docker login \"$REGISTRY\"", "helm registry login \"$REGISTRY\"");
        assertThat(Files.readString(WORKFLOW)).contains("REGISTRY: ghcr.io").doesNotContain("password:", "ghp_");
        for (String module : List.of("server", "controller", "deploy-tests")) {
            assertThat(ROOT.resolve(module).resolve("pom.xml")).isRegularFile();
        }
        assertThat(ROOT.resolve("server/Dockerfile")).isRegularFile();
        assertThat(ROOT.resolve("controller/Dockerfile")).isRegularFile();
    }

    @Test
    void theChartLinesItRewritesExistSoThePublishedChartNamesThePublishedImages() throws IOException {
        String values = Files.readString(ROOT.resolve("charts/muster/values.yaml"));
        assertThat(runs()).contains("sed -i \"s#repository: muster/muster-$module\\$#repository: $REGISTRY/$OWNER/muster-$module#\" charts/muster/values.yaml");
        assertThat(values).containsPattern("(?m)^    repository: muster/muster-server$").containsPattern("(?m)^    repository: muster/muster-controller$");
        String chart = Files.readString(ROOT.resolve("charts/muster/Chart.yaml"));
        assertThat(chart).as("the tag check reads these lines").containsPattern("(?m)^version: [0-9.]+$").containsPattern("(?m)^appVersion: \"[0-9.]+\"$");
    }

    @Test
    void everyStepsShellParsesAndPassesShellcheckWhereInstalled() throws Exception {
        List<String> scripts = new ArrayList<>();
        for (Map<String, Object> s : steps()) {
            if (s.get("run") != null) {
                scripts.add(((String) s.get("run")).replaceAll("\\$\\{\\{[^}]*}}", "expression"));
            }
        }
        assertThat(scripts).hasSize(5);
        for (String script : scripts) {
            assertThat(KindScriptTest.exec(List.of("bash", "-n"), script).exit()).as("bash -n:\n%s", script).isZero();
        }
        Assumptions.assumeTrue(KindScriptTest.onPath("shellcheck"), "shellcheck is not installed");
        for (String script : scripts) {
            KindScriptTest.Run r = KindScriptTest.exec(List.of("shellcheck", "--shell=bash", "-"), script);
            assertThat(r.exit()).as("shellcheck:\n%s\n%s", script, r.out()).isZero();
        }
    }
}
