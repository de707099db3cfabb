package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code scripts/kind-up.sh}, checked as far as a machine without kind can: its {@code --dry-run} prints, in order, the
 * commands a real run makes (cluster, jars, images, load, chart, first gang), the gang it submits is one Muster takes, bad
 * arguments get one line and exit 2, and the script passes {@code bash -n} and, where installed, shellcheck. A real run
 * (kind, Docker) is not made here.
 */
class KindScriptTest {
    private static final Path ROOT = RepoLayout.find().root();
    private static final Path SCRIPT = ROOT.resolve("scripts/kind-up.sh");

    record Run(int exit, String out) {}

    /** Runs {@code command} in the repository's root with {@code stdin} (or none): its exit code and its output and errors. */
    static Run exec(List<String> command, String stdin) throws Exception {
        Process p = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        return new Run(p.exitValue(), out);
    }

    static boolean onPath(String tool) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)));
    }

    @Test
    void theDryRunPrintsEveryStepInOrderAndRunsNone() throws Exception {
        Run r = exec(List.of("bash", SCRIPT.toString(), "--dry-run", "--name", "try"), null);

        assertThat(r.exit()).as(r.out()).isZero();
        String tag = Files.readString(ROOT.resolve("charts/muster/Chart.yaml")).lines().filter(l -> l.startsWith("appVersion:"))
                .findFirst().orElseThrow().replaceAll("appVersion: *\"?([^\"]*)\"?", "$1");
        List<String> commands = r.out().lines().filter(l -> l.startsWith("+ ")).toList();
        assertThat(commands).containsExactly(
                "+ kind create cluster --name try --wait 120s",
                "+ mvn -B -q -pl server,controller -am package -DskipTests",
                "+ docker build --build-arg VERSION=0.1.0-SNAPSHOT -t muster/muster-server:" + tag + " server/",
                "+ docker build --build-arg VERSION=0.1.0-SNAPSHOT -t muster/muster-controller:" + tag + " controller/",
                "+ kind load docker-image --name try muster/muster-server:" + tag + " muster/muster-controller:" + tag,
                "+ helm upgrade --install muster charts/muster --kube-context kind-try --namespace muster-system --create-namespace"
                        + " --set scheduler.image.tag=NODE_VERSION --wait --timeout 5m",
                "+ kubectl --context kind-try apply -f - <<'YAML'",
                "+ kubectl --context kind-try -n default wait podgroup/first-gang --for=jsonpath=\\{.status.phase\\}=Running --timeout=180s",
                "+ kubectl --context kind-try -n default get podgroup first-gang",
                "+ kubectl --context kind-try -n default get pods -l job-name=first-gang -o wide");
        // the images it builds are the chart's defaults (repository and appVersion), so the chart needs no image values
        String values = Files.readString(ROOT.resolve("charts/muster/values.yaml"));
        assertThat(values).contains("repository: muster/muster-server", "repository: muster/muster-controller");
        assertThat(ROOT.resolve("server/Dockerfile")).content().contains("ARG VERSION=0.1.0-SNAPSHOT");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theFirstGangIsAPodGroupOfThreeAndAJobWhosePodsNameItAndAskForMuster() throws Exception {
        String out = exec(List.of("bash", SCRIPT.toString(), "--dry-run"), null).out();
        String manifest = out.substring(out.indexOf("<<'YAML'\n") + "<<'YAML'\n".length(), out.indexOf("\nYAML\n"));
        List<Object> docs = new ArrayList<>();
        new Yaml().loadAll(manifest).forEach(docs::add);

        assertThat(docs).hasSize(2);
        Map<String, Object> podGroup = (Map<String, Object>) docs.get(0);
        assertThat(podGroup).containsEntry("kind", "PodGroup").containsEntry("spec", Map.of("minMember", 3, "queue", "default"));
        Map<String, Object> job = (Map<String, Object>) docs.get(1);
        Map<String, Object> spec = (Map<String, Object>) job.get("spec");
        assertThat(spec).containsEntry("completions", 3).containsEntry("parallelism", 3);
        Map<String, Object> template = (Map<String, Object>) spec.get("template");
        assertThat((Map<String, Object>) template.get("metadata")).containsEntry("annotations", Map.of("scheduling.k8s.io/group-name", "first-gang"));
        Map<String, Object> pod = (Map<String, Object>) template.get("spec");
        assertThat(pod).containsEntry("schedulerName", "muster");
        Map<String, Object> container = ((List<Map<String, Object>>) pod.get("containers")).getFirst();
        assertThat((String) container.get("image")).as("an image kind already has: nothing to pull").startsWith("muster/muster-server:");
        assertThat(container).containsEntry("imagePullPolicy", "IfNotPresent");
    }

    @Test
    void badArgumentsGetOneLineAndExit2() throws Exception {
        Run bogus = exec(List.of("bash", SCRIPT.toString(), "--bogus"), null);
        assertThat(bogus.exit()).isEqualTo(2);
        assertThat(bogus.out()).isEqualTo("kind-up: unknown argument \"--bogus\"; usage: scripts/kind-up.sh [--dry-run] [--name NAME]\n");
        Run noName = exec(List.of("bash", SCRIPT.toString(), "--name"), null);
        assertThat(noName.exit()).isEqualTo(2);
        assertThat(noName.out().lines()).hasSize(1);
    }

    @Test
    void theScriptIsExecutableParsesAndPassesShellcheckWhereInstalled() throws Exception {
        assertThat(Files.isExecutable(SCRIPT)).isTrue();
        assertThat(exec(List.of("bash", "-n", SCRIPT.toString()), null).exit()).isZero();
        Assumptions.assumeTrue(onPath("shellcheck"), "shellcheck is not installed");
        Run r = exec(List.of("shellcheck", SCRIPT.toString()), null);
        assertThat(r.exit()).as(r.out()).isZero();
    }
}
