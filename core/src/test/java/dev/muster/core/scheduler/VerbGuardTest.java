package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verbs act only on what the cluster showed: anything else is refused and changes nothing. */
class VerbGuardTest {
    private static List<Pod> members(String pg, int n, String cpu) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(pod(pg + "-" + i).gang(pg).requests(cpu, "1Gi").build());
        }
        return out;
    }

    /** Nothing assumed, reserved, held or bound; the books balance. */
    private static void nothingChanged(SchedulerHarness h) {
        assertThat(h.scheduler.ledger().pods()).isEmpty();
        assertThat(h.scheduler.ledger().reservations()).isEmpty();
        SchedulerStats stats = h.scheduler.stats();
        assertThat(stats.waitingBinds()).isZero();
        assertThat(stats.heldBinds()).isZero();
        assertThat(h.binder.calls()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void ghostPodsInAFilterAreRefusedAndNothingIsAssumedOrReserved() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "8", "32Gi");
        for (int i = 0; i < 3; i++) {
            Pod ghost = pod("ghost-" + i).requests("8", "1Gi").build();
            assertThatThrownBy(() -> h.scheduler.filter(ghost, h.nodeNames, false, true))
                    .isInstanceOf(VerbRefusedException.class).hasMessageContaining("has not been seen in the cluster");
        }
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        for (Pod ghost : members("g", 2, "8")) { // members the cluster never showed: no reservation for their gang
            assertThatThrownBy(() -> h.scheduler.filter(ghost, h.nodeNames)).isInstanceOf(VerbRefusedException.class);
        }
        nothingChanged(h);

        Pod real = h.seen(pod("real").requests("8", "1Gi").build()); // the room is all there for a real pod
        assertThat(h.scheduler.filter(real, h.nodeNames).feasible()).hasSize(1);
    }

    @Test
    void aBindForAPodTheClusterNeverShowedOrAGatedGangMemberChangesNothing() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        Pod unseen = members("g", 2, "1").getFirst();
        BindResult r = h.scheduler.bind(unseen.id(), "n0").join();
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).contains("has not been seen in the cluster");
        nothingChanged(h);
    }

    @Test
    void podsOfAnotherSchedulerBeingDeletedOrBoundElsewhereAreNeitherFilteredNorBound() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "8", "32Gi");
        Pod others = h.seen(pod("default-sched").requests("1", "1Gi").build().asInCluster("default-scheduler", false));
        Pod deleting = h.seen(pod("deleting").requests("1", "1Gi").build().asInCluster("muster", true));
        assertThatThrownBy(() -> h.scheduler.filter(others, h.nodeNames)).hasMessageContaining("is scheduled by default-scheduler");
        assertThatThrownBy(() -> h.scheduler.filter(deleting, h.nodeNames)).hasMessageContaining("is being deleted");
        assertThat(h.scheduler.bind(others.id(), "n0").join().error()).contains("is scheduled by default-scheduler");
        assertThat(h.scheduler.bind(deleting.id(), "n0").join().error()).contains("is being deleted");
        nothingChanged(h);

        Pod running = h.seen(pod("running").requests("1", "1Gi").on("n1").build().asInCluster("muster", false));
        assertThatThrownBy(() -> h.scheduler.filter(running, h.nodeNames)).hasMessageContaining("already bound to n1");
        assertThat(h.scheduler.bind(running.id(), "n0").join().error()).contains("already bound to n1");
        assertThat(h.binder.calls()).isZero();
    }

    @Test
    void aPodIsBoundOnlyOntoANodeItsFilterPassed() {
        SchedulerHarness h = SchedulerHarness.cluster(3, "8", "32Gi");
        Pod p = h.seen(pod("p").requests("1", "1Gi").build().asInCluster("muster", false));
        BindResult unfiltered = h.scheduler.bind(p.id(), "n0").join();
        assertThat(unfiltered.error()).contains("was not filtered onto node n0", "passed it on no node");

        String picked = h.scheduler.filter(p, h.nodeNames).feasible().getFirst();
        String other = h.nodeNames.stream().filter(n -> !n.equals(picked)).findFirst().orElseThrow();
        assertThat(h.scheduler.bind(p.id(), other).join().error()).contains("was not filtered onto node " + other);
        assertThat(h.binder.calls()).isZero();
        assertThat(h.scheduler.bind(p.id(), picked).join().ok()).isTrue();
        assertThat(h.binder.bound()).containsEntry(p.uid(), picked);
    }

    @Test
    void aRequestNamingAKnownUidWithAnotherPodsNameIsRefused() {
        SchedulerHarness h = SchedulerHarness.cluster(1, "8", "32Gi");
        Pod p = h.seen(pod("p").requests("1", "1Gi").build());
        Pod impostor = new Pod(new PodId(p.uid(), "kube-system", "coredns"), "1", p.request(), null, "", 0, null, null);
        assertThatThrownBy(() -> h.scheduler.filter(impostor, h.nodeNames)).hasMessageContaining("that uid is default/p");
        nothingChanged(h);
    }
}
