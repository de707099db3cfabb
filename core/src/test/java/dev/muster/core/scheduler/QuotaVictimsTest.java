package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.PreemptionTest.arrives;
import static dev.muster.core.scheduler.PreemptionTest.running;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.preempt.PreemptionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * A gang of higher priority in a queue at its capability fits on free room: only its queue's quota needs the lower
 * gang gone. It may bind before the victims' dry runs answer; their evictions still go, so the queue ends at its
 * capability (stopping them once the preemptor runs, as for a decision whose room it used, left it above it).
 */
class QuotaVictimsTest {
    /** Dry runs answer only when told; evictions are accepted at once. */
    private static final class SlowChecks implements Evictor {
        final List<CompletableFuture<EvictionOutcome>> checks = new ArrayList<>();
        final List<String> evicted = new ArrayList<>();

        @Override
        public synchronized CompletionStage<EvictionOutcome> check(PodId pod) {
            CompletableFuture<EvictionOutcome> f = new CompletableFuture<>();
            checks.add(f);
            return f;
        }

        @Override
        public synchronized CompletionStage<EvictionOutcome> evict(PodId pod, String why) {
            evicted.add(pod.name());
            return CompletableFuture.completedFuture(new EvictionOutcome.Evicted());
        }

        synchronized List<CompletableFuture<EvictionOutcome>> pending() {
            return List.copyOf(checks);
        }
    }

    @Test
    void victimsTheQuotaNeedsAreEvictedEvenWhenThePreemptorBindsBeforeTheirDryRunsAnswer() {
        SlowChecks evictor = new SlowChecks();
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor,
                DisruptionBudgets.NONE);
        for (int i = 0; i < 4; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.upsertQueue(queue("capped", res("8", "64Gi")));
        h.scheduler.markSynced();
        running(h, "low-a", "capped", 2, 0, "n0", "n0");
        h.clock.advance(Duration.ofSeconds(10));
        running(h, "low-b", "capped", 2, 0, "n1", "n1");
        List<Pod> big = arrives(h, "big", "capped", 2, 1000); // n2 and n3 are free, but the queue is full

        h.scheduler.expireDue(); // decided: low-b goes; its dry runs are under way
        assertThat(evictor.pending()).hasSize(2);
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (Pod p : big) {
            binds.add(h.schedule(p)); // on free room, at once
        }
        binds.forEach(b -> assertThat(b.join()).isEqualTo(BindResult.BOUND));
        GangKey key = new GangKey("default", "big");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(dev.muster.core.model.GangState.BOUND);
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue(); // the preemptor runs: the decision goes on, its queue still needs low-b gone

        evictor.pending().forEach(f -> f.complete(new EvictionOutcome.Evicted()));
        h.scheduler.expireDue();
        assertThat(evictor.evicted).containsExactlyInAnyOrder("low-b-0", "low-b-1");
        assertThat(h.invariantViolations()).isEmpty();
    }
}
