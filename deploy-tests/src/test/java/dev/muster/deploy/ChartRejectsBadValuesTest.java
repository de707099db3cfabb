package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.deploy.Chart.Install;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values that would produce a broken installation fail at render time (helm install/template), with
 * a message that names the value.
 */
class ChartRejectsBadValuesTest {

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of("httpTimeout equal to the gang deadline",
                        Install.with("scheduler.extender.httpTimeoutSeconds", 60), "scheduler.extender.httpTimeoutSeconds (60) must be greater than extender.gangDeadlineSeconds (60)"),
                Arguments.of("gang deadline beyond the default httpTimeout",
                        Install.with("extender.gangDeadlineSeconds", 120), "must be greater than extender.gangDeadlineSeconds (120)"),
                Arguments.of("unknown scoring policy",
                        Install.with("extender.scoring", "random"), "scoring"),
                Arguments.of("pickNode not a boolean",
                        Install.with("extender.pickNode", "maybe"), "pickNode"),
                Arguments.of("gangMarker not a boolean",
                        Install.with("extender.gangMarker", "sometimes"), "gangMarker"),
                Arguments.of("preemption not a boolean",
                        Install.with("extender.preemption.enabled", "often"), "enabled"),
                Arguments.of("victim minimum run time that is not a duration",
                        Install.with("extender.preemption.victimMinRuntime", "ten minutes"), "victimMinRuntime"),
                Arguments.of("a band around fair share of the whole share",
                        Install.with("extender.preemption.reclaimBand", 1), "reclaimBand"),
                Arguments.of("a band around fair share that is not a fraction",
                        Install.with("extender.preemption.reclaimBand", "10%"), "reclaimBand"),
                Arguments.of("a dry-run rate of nothing",
                        Install.with("extender.preemption.dryRunRate", 0), "dryRunRate"),
                Arguments.of("a dry-run burst that is not a whole number",
                        Install.with("extender.preemption.dryRunBurst", 2.5), "dryRunBurst"),
                Arguments.of("misspelt preemption value",
                        Install.with("extender.preemption.reclaimable", false), "reclaimable"),
                Arguments.of("all-or-nothing scale-up without the queue-admission gate",
                        Install.with("extender.provisioning.enabled", true), "extender.provisioning.enabled needs extender.queueGate.enabled=true"),
                Arguments.of("certificates from nowhere known",
                        Install.with("tls.source", "vault"), "source"),
                Arguments.of("the old per-port TLS switches",
                        Install.with("extender.tls.enabled", false), "tls"),
                Arguments.of("the default scheduler's Lease",
                        Install.with("scheduler.leaderElection.resourceName", "kube-scheduler"), "must not be \"kube-scheduler\""),
                Arguments.of("misspelt value",
                        Install.with("extender.replica", 3), "replica"),
                Arguments.of("port out of range",
                        Install.with("extender.httpPort", 70000), "httpPort"),
                Arguments.of("flush interval that is not a duration",
                        Install.with("controller.flushInterval", "soon"), "flushInterval"),
                Arguments.of("topology level that is not a label key",
                        Install.with("extender.topologyLevels[0]", "my rack"), "topologyLevels"),
                Arguments.of("JIT mode the JVM does not have",
                        Install.with("extender.compilationMode", "c2-only"), "compilationMode"),
                Arguments.of("collector the chart does not name",
                        Install.with("controller.garbageCollector", "zgc"), "garbageCollector"),
                Arguments.of("kube-scheduler's own gang scheduling",
                        Install.with("scheduler.featureGates.GenericWorkload", true), "scheduler.featureGates.GenericWorkload must not be true"),
                Arguments.of("kube-scheduler's own gang plugin",
                        Install.with("scheduler.featureGates.GangScheduling", true), "scheduler.featureGates.GangScheduling must not be true"),
                Arguments.of("a feature gate that is not a boolean",
                        Install.with("scheduler.featureGates.SchedulerAsyncAPICalls", "yes"), "featureGates"),
                Arguments.of("percentage above 100",
                        Install.with("scheduler.percentageOfNodesToScore", 150), "percentageOfNodesToScore"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void renderFailsNamingTheValue(String name, Install install, String expectedMessage) {
        assertThat(Chart.renderError(install)).as(name).hasValueSatisfying(message -> assertThat(message).contains(expectedMessage));
    }
}
