package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;

/** {@code helm lint --strict} on charts/muster, with the real Helm. */
class HelmLintTest {

    @Test
    void chartPassesStrictLint() {
        LintResult result = Chart.lintStrict();
        assertThat(result.isFailed()).as("lint failed: %s", result.getMessages()).isFalse();
        assertThat(result.getMessages()).as("lint findings")
                .noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
    }
}
