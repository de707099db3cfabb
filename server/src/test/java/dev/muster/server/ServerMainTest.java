package dev.muster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.KubeClients;
import dev.muster.common.testing.ConsoleRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerMainTest {
    @TempDir
    Path noServiceAccount;

    @Test
    void outsideAClusterWithoutKubeconfigOneLineSaysWhatToPassAndTheExitCodeIsTwo() throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) ->
                ServerMain.run(List.of("--leader-elect=false", "--insecure-unauthenticated-verbs"), Map.of(), new KubeClients.InCluster(Map.of(), noServiceAccount), out, err));

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).singleElement().asString().startsWith("muster-extender: no Kubernetes configuration")
                .contains("KUBERNETES_SERVICE_HOST is unset", "pass --kubeconfig PATH");
    }

    @Test
    void aBadFlagIsOneLineNamingItWithoutTheFlagTableAndTheExitCodeIsTwo() throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) ->
                ServerMain.run(List.of("--kubeconfig", "/k", "--gang-dedline", "30s"), Map.of(), new KubeClients.InCluster(Map.of(), noServiceAccount), out, err));

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).singleElement().asString().startsWith("muster-extender: unknown flag --gang-dedline").endsWith("; see --help");
    }
}
