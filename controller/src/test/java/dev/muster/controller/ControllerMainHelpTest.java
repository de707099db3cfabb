package dev.muster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.KubeClients;
import dev.muster.common.testing.ConsoleRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ControllerMainHelpTest {

    @ParameterizedTest(name = "{0} prints usage and returns normally (exit 0)")
    @ValueSource(strings = {"--help", "-h"})
    void helpPrintsUsage(String flag) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            ControllerMain.main(new String[] {flag});
        } finally {
            System.setOut(original);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(ControllerConfig.usage()).contains("--kubeconfig");
    }

    @Test
    void aBadFlagIsOneLineNamingItWithoutTheFlagTableAndTheExitCodeIsTwo(@TempDir Path noServiceAccount) throws Exception {
        ConsoleRun r = ConsoleRun.of((out, err) -> ControllerMain.run(List.of("--kubeconfig", "/k", "--flush-intervall", "1s"), Map.of(),
                new KubeClients.InCluster(Map.of(), noServiceAccount), out, err));

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).singleElement().asString().startsWith("muster-controller: unknown flag --flush-intervall").endsWith("; see --help");
    }
}
