package dev.muster.server.warmup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.gang.QueueGate;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.server.ExtenderProcess;
import dev.muster.server.ServerDefaults;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import io.prometheus.client.CollectorRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The verbs' warm-up answers every made-up request as a cluster with room would — with the extender's own settings,
 * whatever they are — touches nothing outside its own core, and an extender is ready only once it is done.
 */
class VerbWarmUpTest {
    @ParameterizedTest(name = "gang marker {0}")
    @ValueSource(booleans = {true, false})
    void everySinglePodAndGangMemberFitsAndEveryGangBindsWhole(boolean gangMarker) {
        VerbWarmUp.Result r = VerbWarmUp.run(SchedulerConfig.DEFAULT, gangMarker, new VerbWarmUp.Size(50, 30, 4, 8));

        // at least the size asked for; more rounds of the same while the JIT is still compiling
        assertThat(r.filtersFit()).isGreaterThanOrEqualTo(30 + 4 * 8);
        assertThat(r.filtersOther()).isZero();
        assertThat(r.bindsBound()).isGreaterThanOrEqualTo(4 * 8).isLessThanOrEqualTo(3 * 4 * 8);
        assertThat(r.bindsBound() % 8).as("whole gangs").isZero();
        assertThat(r.bindsOther()).isZero();
    }

    @Test
    void theExtendersOwnSettingsAreKeptButNothingPreemptsOrWaitsForAGate() {
        SchedulerConfig own = SchedulerConfig.DEFAULT.withSchedulerName("batch").withPickNode(false)
                .withQueueGate(QueueGate.on(dev.muster.core.gang.GateLifter.NONE));

        VerbWarmUp.Result r = VerbWarmUp.run(own, true, new VerbWarmUp.Size(20, 10, 2, 4));

        assertThat(r.filtersFit()).isGreaterThanOrEqualTo(10 + 2 * 4);
        assertThat(r.filtersOther()).isZero();
        assertThat(r.bindsBound()).isGreaterThanOrEqualTo(2 * 4);
    }

    @Test
    void touchesNoMetricsOfTheProcess() {
        int before = Collections.list(CollectorRegistry.defaultRegistry.metricFamilySamples()).size();

        VerbWarmUp.run(SchedulerConfig.DEFAULT, true, new VerbWarmUp.Size(10, 5, 1, 2));

        assertThat(Collections.list(CollectorRegistry.defaultRegistry.metricFamilySamples())).hasSize(before);
    }

    @Test
    void aSizeThatCannotRunIsRefusedNamingIt() {
        assertThatThrownBy(() -> new VerbWarmUp.Size(0, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one node").hasMessageContaining("0 nodes");
    }

    @Test
    void firstNodeReadsTheFirstNameOfAFilterAnswer() {
        assertThat(VerbWarmUp.firstNode(json("{\"Nodes\":null,\"NodeNames\":[\"n-1\"],\"FailedNodes\":{}}"))).isEqualTo("n-1");
        assertThat(VerbWarmUp.firstNode(json("{\"Nodes\":null,\"NodeNames\":[\"n-1\",\"n-2\"]}"))).isEqualTo("n-1");
        assertThat(VerbWarmUp.firstNode(json("{\"Nodes\":null,\"NodeNames\":[]}"))).isNull();
        assertThat(VerbWarmUp.firstNode(json("{\"Nodes\":null,\"NodeNames\":null}"))).isNull();
    }

    @Test
    void anExtenderIsNotReadyUntilItsWarmUpIsDoneEvenOnceSynced() throws Exception {
        ExtenderProcess.Settings s = new ExtenderProcess.Settings("127.0.0.1", 0, null, 0, 0, Optional.empty(), SchedulerConfig.DEFAULT,
                ServerDefaults.MAX_BODY_BYTES, 1024, Duration.ofMillis(100), false);
        CompletableFuture<Void> warmedUp = new CompletableFuture<>();
        try (ExtenderProcess p = new ExtenderProcess(s, ExtenderProcess.Core.of(s, new RecordingBinder()), Leadership.ALWAYS,
                new CollectorRegistry(), warmedUp)) {
            ExtenderClient ops = new ExtenderClient("http://127.0.0.1:" + p.opsPort(), Duration.ofSeconds(10));
            ExtenderClient verbs = new ExtenderClient("http://127.0.0.1:" + p.httpPort(), Duration.ofSeconds(10));
            p.scheduler().markSynced();

            ExtenderClient.Raw early = ops.get("/readyz");
            assertThat(early.status()).isEqualTo(503);
            assertThat(new String(early.body(), StandardCharsets.UTF_8)).contains("warming up the verbs");
            assertThat(verbs.post("/filter", json("{}")).status()).as("verbs wait for readiness too").isEqualTo(503);

            warmedUp.complete(null);

            assertThat(ops.get("/readyz").status()).isEqualTo(200);
        }
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
