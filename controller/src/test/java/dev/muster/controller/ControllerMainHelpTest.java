package dev.muster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
}
