package dev.muster.demo.cli;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.testing.ConsoleRun;
import dev.muster.controller.Controller;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.demo.EmbeddedMuster;
import dev.muster.demo.cluster.ClusterEvictor;
import dev.muster.demo.cluster.ClusterPod;
import dev.muster.demo.cluster.EmbeddedCluster;
import dev.muster.server.ServerDefaults;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The embedded Muster takes capacity back as a cluster's does: queue {@code early} borrowed the whole cluster, {@code late}
 * (same weight) has a gang waiting; {@code what-would-it-take} names the reclaim it would make, and once the extender may
 * evict, one of early's gangs is evicted through the embedded cluster's Eviction API and its pods recreated pending.
 */
class EmbeddedReclaimTest {
    /** The demo's evictor, held back until {@code open}: a process that may not evict decides nothing ({@link Evictor#ready}). */
    private record Gated(ClusterEvictor evictor, AtomicBoolean open) implements Evictor {
        @Override
        public CompletionStage<EvictionOutcome> evict(PodId pod, String why) {
            return evictor.evict(pod, why);
        }

        @Override
        public boolean ready() {
            return open.get();
        }
    }

    @Test
    void whatWouldItTakeNamesTheReclaimAndTheEvictionRemovesTheVictimsWhoseControllerRecreatesThem() throws Exception {
        EmbeddedCluster cluster = new EmbeddedCluster(System::nanoTime);
        cluster.applyNode(node("node-1", "8", "32Gi"));
        cluster.applyNode(node("node-2", "8", "32Gi"));
        cluster.applyQueue(QueueSpec.open("early", null));
        cluster.applyQueue(QueueSpec.open("late", null));
        for (int g = 1; g <= 2; g++) { // early holds both nodes: two gangs of 2 × 4 cpu, bound as a scheduler would have
            GangKey key = new GangKey("early", "fill-" + g);
            cluster.createPodGroup(podGroup("early", "fill-" + g, 2, "early"));
            for (int i = 0; i < 2; i++) {
                PodId id = new PodId("fill-" + g + "-" + i, "early", "fill-" + g + "-" + i);
                cluster.createPod(id, res("4", "8Gi"), key, ServerDefaults.SCHEDULER_NAME, 0, null);
                cluster.bind(id, "node-" + g);
                cluster.startPod(id.uid());
            }
        }
        GangKey want = new GangKey("late", "want-1");
        cluster.createPodGroup(podGroup("late", "want-1", 2, "late"));
        for (int i = 0; i < 2; i++) {
            cluster.createPod(new PodId("want-" + i, "late", "want-1-" + i), res("4", "8Gi"), want, ServerDefaults.SCHEDULER_NAME, 0, null);
        }

        AtomicBoolean open = new AtomicBoolean(false);
        try (ClusterEvictor evictor = new ClusterEvictor(cluster, System::nanoTime);
             EmbeddedMuster muster = EmbeddedMuster.start(cluster, EmbeddedMuster.Ports.anyLoopback(),
                     new EmbeddedMuster.Options(Duration.ofSeconds(60), Duration.ofMillis(100), Controller.Settings.DEFAULTS, Duration.ofSeconds(30),
                             PreemptionSettings.DEFAULT, new Gated(evictor, open)), null)) {
            String extender = "127.0.0.1:" + muster.extender().grpcPort();
            // polled no faster than the dry run's rate limit for one caller (--dry-run-rate 1)
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1100)).untilAsserted(() -> {
                ConsoleRun r = ask(extender);
                assertThat(r.out()).as(r.err()).contains("would run by reclaiming");
            });

            ConsoleRun plan = ask(extender);
            assertThat(plan.exit()).as(plan.err()).isZero();
            assertThat(plan.out().lines().findFirst().orElseThrow())
                    .isEqualTo("late/want-1: would run by reclaiming 1 gang (2 pods) from queue early on 1 node (queue reclaim), placing its 2 pods");
            assertThat(plan.out()).containsPattern("\\nearly +early/fill-[12] +whole gang +0 +2 +node-[12] +cpu=8,memory=16Gi\\n")
                    .doesNotContain("preemption and queue reclaim are off");

            open.set(true);
            await().atMost(Duration.ofSeconds(30)).until(() -> evictor.evictions().size() == 2);
            List<ClusterEvictor.Eviction> evicted = evictor.evictions();
            GangKey victim = evicted.getFirst().gang();
            assertThat(evicted).allSatisfy(e -> {
                assertThat(e.gang()).as("one whole gang").isEqualTo(victim);
                assertThat(e.why()).contains("late/want-1");
                assertThat(cluster.pod(e.pod().uid())).as("evicted").isNull();
                ClusterPod replacement = cluster.pod(e.replacement().uid());
                assertThat(replacement.isPending()).as("recreated by its controller, waiting").isTrue();
                assertThat(replacement.gang()).isEqualTo(victim);
            });
            assertThat(muster.extender().scheduler().stats().queueShares()).containsKeys("early", "late");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1100))
                    .untilAsserted(() -> assertThat(ask(extender).out()).contains("is admitted: its room is reserved"));
        }
    }

    private static ConsoleRun ask(String extender) throws Exception {
        return ConsoleRun.of((o, e) -> WhatWouldItTakeCli.run(List.of("late/want-1", "--extender", extender), Map.of(), o, e));
    }
}
