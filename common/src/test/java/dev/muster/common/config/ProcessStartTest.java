package dev.muster.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.KubeClients;
import dev.muster.common.testing.ConsoleRun;
import dev.muster.common.testing.Kubeconfigs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessStartTest {
    private static final String USAGE = "usage: muster-x [--kubeconfig PATH]\n";

    @TempDir
    Path dir;

    /** A process with one flag, --kubeconfig. */
    private ConsoleRun begin(List<String> args, KubeClients.InCluster inCluster) throws Exception {
        return ConsoleRun.of((out, err) -> {
            try {
                ProcessStart.Begun<Flags> begun = new ProcessStart("muster-x", USAGE, out, err)
                        .begin(args, Map.of(), (a, env) -> Flags.parse(a, Set.of("kubeconfig"), env), f -> f.optional("kubeconfig"), inCluster);
                assertThat(begun.kube()).isNotNull();
                return -1;
            } catch (ProcessStart.Exit e) {
                return e.code();
            }
        });
    }

    private KubeClients.InCluster nowhere() {
        return new KubeClients.InCluster(Map.of(), dir.resolve("no-service-account"));
    }

    @Test
    void helpPrintsTheUsageAndExitsZero() throws Exception {
        ConsoleRun r = begin(List.of("-h"), nowhere());

        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo(USAGE);
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aBadFlagIsOneLineNamingItAndExitsTwo() throws Exception {
        ConsoleRun r = begin(List.of("--kubeconfg", "x"), nowhere());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).singleElement().asString().startsWith("muster-x: unknown flag --kubeconfg").endsWith("; see --help");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void noKubernetesConfigurationIsOneLineAndExitTwo() throws Exception {
        ConsoleRun r = begin(List.of(), nowhere());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).singleElement().asString().startsWith("muster-x: no Kubernetes configuration").endsWith("(or set MUSTER_KUBECONFIG)");
    }

    @Test
    void startedBareOutsideAClusterSaysOnlyThatAKubeconfigIsMissing() throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) -> {
            try {
                new ProcessStart("muster-x", USAGE, out, err).begin(List.of(), Map.of(), (a, env) -> {
                    throw new IllegalArgumentException("--lease-namespace is not set");
                }, c -> null, nowhere());
                return -1;
            } catch (ProcessStart.Exit e) {
                return e.code();
            }
        });

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).singleElement().asString().startsWith("muster-x: no Kubernetes configuration").endsWith("(or set MUSTER_KUBECONFIG)");
    }

    @Test
    void aKubeconfigGivesTheClients() throws Exception {
        Path kubeconfig = Kubeconfigs.pointingNowhere(dir);

        ConsoleRun r = begin(List.of("--kubeconfig", kubeconfig.toString()), nowhere());

        assertThat(r.exit()).as("begun: the process goes on").isEqualTo(-1);
        assertThat(r.err()).isEmpty();
    }
}
