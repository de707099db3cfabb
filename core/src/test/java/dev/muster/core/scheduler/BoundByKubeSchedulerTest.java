package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.Assumptions;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Single pods that kube-scheduler binds itself (it binds through Muster only gang members marked with
 * {@code muster.dev/gang}): the one node filter leaves such a pod is assumed at once, as kube-scheduler's cache assumes
 * it, so the next decision sees the room taken before the cluster shows the pod bound.
 */
class BoundByKubeSchedulerTest {
    @Test
    void thePickedNodeIsAssumedAtOnceSoTheNextPodSeesItsRoomTaken() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "2", "8Gi");
        Pod a = pod("a").requests("1500m", "1Gi").build();
        Pod b = pod("b").requests("1500m", "1Gi").build();

        String first = only(h.scheduler.filter(h.seen(a), h.nodeNames, false, true));
        String second = only(h.scheduler.filter(h.seen(b), h.nodeNames, false, true));

        assertThat(second).as("b does not fit beside a").isNotEqualTo(first);
        assertThat(record(h, a)).hasValueSatisfying(r -> assertThat(r.assumed()).isTrue());
        assertThat(h.totals().allocatedByQueue().get("")).isEqualTo(req("1500m", "1Gi").times(2));
        assertThat(h.binder.bound()).as("muster posts no Binding for them").isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void theClusterShowingThePodBoundConfirmsItAndNothingIsCountedTwice() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "8Gi");
        Pod a = pod("a").requests("1", "1Gi").build();
        String node = only(h.scheduler.filter(h.seen(a), h.nodeNames, false, true));

        h.scheduler.upsertPod(a.withNode(node).withPhase(dev.muster.core.model.PodPhase.RUNNING));
        h.clock.advance(Assumptions.EXPECT_WITHIN.plusSeconds(1));
        h.scheduler.expireDue();

        assertThat(record(h, a)).hasValueSatisfying(r -> assertThat(r.assumed()).isFalse());
        assertThat(h.totals().allocatedByQueue().get("")).isEqualTo(req("1", "1Gi"));
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aPodFilteredAgainGivesBackItsAssumedRoomBeforeTheNewDecision() {
        SchedulerHarness h = SchedulerHarness.cluster(1, "2", "8Gi");
        Pod a = pod("a").requests("1500m", "1Gi").build();
        only(h.scheduler.filter(h.seen(a), h.nodeNames, false, true));

        // kube-scheduler could not bind it (a later plugin failed) and asks again: it still fits on the only node
        assertThat(only(h.scheduler.filter(h.seen(a), h.nodeNames, false, true))).isEqualTo("n0");
        assertThat(h.totals().allocatedByQueue().get("")).isEqualTo(req("1500m", "1Gi"));
        assertThat(h.scheduler.ledger().pods()).hasSize(1);
    }

    @Test
    void anAssumptionTheClusterNeverConfirmsIsDroppedAfterTheConfirmationWindow() {
        SchedulerHarness h = SchedulerHarness.cluster(1, "2", "8Gi");
        Pod a = pod("a").requests("1500m", "1Gi").build();
        only(h.scheduler.filter(h.seen(a), h.nodeNames, false, true));

        h.clock.advance(Assumptions.EXPECT_WITHIN.minus(Duration.ofSeconds(1)));
        h.scheduler.expireDue();
        assertThat(record(h, a)).isPresent();
        h.clock.advance(Duration.ofSeconds(2));
        h.scheduler.expireDue();
        assertThat(record(h, a)).isEmpty();
        assertThat(only(h.scheduler.filter(h.seen(pod("b").requests("1500m", "1Gi").build()), h.nodeNames, false, true))).isEqualTo("n0");
    }

    @Test
    void aPodLeftSeveralNodesOrBoundThroughMustersBindVerbIsNotAssumedAtFilter() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "8Gi");
        Pod soft = pod("soft").requests("1", "1Gi").build();
        Pod viaBindVerb = pod("v").requests("1", "1Gi").build();

        assertThat(h.scheduler.filter(h.seen(soft), h.nodeNames, true, true).feasible()).hasSize(2);
        assertThat(h.scheduler.filter(h.seen(viaBindVerb), h.nodeNames, false, false).feasible()).hasSize(1);
        assertThat(h.scheduler.ledger().pods()).isEmpty();
    }

    @Test
    void aPodAssumedAtFilterThatKubeSchedulerAsksMusterToBindAfterAllIsReallyBound() {
        // a kube-scheduler whose one extender binds every pod (the configuration before the gang marker)
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "8Gi");
        Pod a = pod("a").requests("1", "1Gi").build();
        String node = only(h.scheduler.filter(h.seen(a), h.nodeNames, false, true));

        assertThat(h.scheduler.bind(a.id(), node).join().ok()).isTrue();
        assertThat(h.binder.bound()).as("a Binding was posted").containsEntry(a.uid(), node);
        assertThat(h.totals().allocatedByQueue().get("")).isEqualTo(req("1", "1Gi"));
        assertThat(h.scheduler.ledger().pods()).hasSize(1);
        assertThat(h.invariantViolations()).isEmpty();
    }

    private static String only(FilterResult r) {
        assertThat(r.feasible()).hasSize(1);
        return r.feasible().getFirst();
    }

    private static Optional<PodRecord> record(SchedulerHarness h, Pod p) {
        List<PodRecord> pods = h.scheduler.ledger().pods();
        return pods.stream().filter(r -> r.pod().uid().equals(p.uid())).findFirst();
    }
}
