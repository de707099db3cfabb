package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes has no multi-pod binding: a member whose pod goes away as the barrier opens fails its Binding while the
 * others succeed, or is bound and then deleted before the others' Bindings answer. Muster must never call that gang
 * Scheduled, and must give back at once what the lost member held. The interleavings are made deterministic: with a
 * finalizer (the deleted member stays, terminating, so the barrier opens with it, and the API server refuses its
 * Binding "is being deleted"), and with an admission webhook that holds the other members' Bindings
 * ({@link BindingGate}).
 */
class PartialBindE2eTest extends RealClusterTest {
    private static final String HOLD = "muster.dev/e2e-hold";

    @Test
    void aMemberDeletedAsTheBarrierOpensLeavesTheGangShortNeverScheduledAndItsRoomFree() {
        c.admin.podGroup(ns, "g", 4, "default", Map.of());
        c.admin.members(ns, "g", 0, 3, "2", "1Gi");
        c.admin.finalizer(ns, "g-1", HOLD);
        Awaitility.await("three members wait at the barrier").atMost(Duration.ofSeconds(60))
                .until(() -> c.extender.gauge("muster_waiting_binds") == 3);
        try {
            c.admin.delete(ns, "g-1"); // terminating: it still exists, muster still counts it
            c.admin.members(ns, "g", 3, 1, "2", "1Gi");

            Awaitility.await("the other three bound").atMost(Duration.ofSeconds(60))
                    .until(() -> c.admin.bound(ns, "g-").size() == 3);
            assertThat(c.admin.bound(ns, "g-")).doesNotContainKey("g-1");
            Awaitility.await("the gang reported short").atMost(Duration.ofSeconds(50)).until(() -> c.conditions(ns, "g"), conditions -> conditions.stream()
                    .anyMatch(s -> s.startsWith("Unschedulable=True NotEnoughTasks") && s.contains("only 3/4 members could be bound")));
            assertThat(c.conditions(ns, "g")).noneMatch(s -> s.startsWith("Scheduled=True"));
            Awaitility.await("nothing stays reserved").atMost(Duration.ofSeconds(30))
                    .until(() -> c.extender.gauge("muster_reservations") == 0);

            // the room is really free: a gang of 5×2 cpu fits beside the 3 bound members (32 - 6 cpu free)
            c.admin.podGroup(ns, "next", 5, "default", Map.of());
            c.admin.members(ns, "next", 0, 5, "2", "1Gi");
            c.awaitBound(ns, "next-", 5, System.nanoTime());

            // a replacement member joins the running members; then the gang is whole and Scheduled
            c.admin.members(ns, "g", 4, 1, "2", "1Gi");
            Awaitility.await("replacement bound").atMost(Duration.ofSeconds(60)).until(() -> c.admin.bound(ns, "g-").size() == 4);
            Awaitility.await("scheduled once whole").atMost(Duration.ofSeconds(30))
                    .until(() -> c.conditions(ns, "g").stream().anyMatch(s -> s.startsWith("Scheduled=True")));
            assertThat(c.cpuPerNode().values()).allMatch(m -> m <= 4000);
        } finally {
            c.admin.finalizer(ns, "g-1", null);
        }
    }

    @Test
    void aMemberDeletedAfterItWasBoundWhileTheOthersWereStillBindingLeavesTheGangShortNeverScheduled() throws Exception {
        try (BindingGate gate = new BindingGate(c.cp.adminClient(), Files.createTempDirectory("muster-e2e-gate-"), ns,
                Set.of("h-1", "h-2", "h-3"))) {
            gate.awaitActive(Duration.ofSeconds(30));
            c.admin.podGroup(ns, "h", 4, "default", Map.of());
            c.admin.members(ns, "h", 0, 4, "2", "1Gi");
            Awaitility.await("h-0 bound while the Bindings of h-1..h-3 are held").atMost(Duration.ofSeconds(60))
                    .until(() -> c.admin.bound(ns, "h-").containsKey("h-0") && gate.waiting().size() == 3);

            long deleted = System.nanoTime();
            c.admin.deleteNow(ns, "h-0");
            Awaitility.await("the gang reported short").pollInterval(Duration.ofMillis(50)).atMost(Duration.ofSeconds(50)).until(() -> c.conditions(ns, "h"), conditions -> conditions.stream()
                    .anyMatch(s -> s.startsWith("Unschedulable=True NotEnoughTasks") && s.contains("only 3/4 members could be bound")));
            System.out.printf("e2e: h-0 deleted after it was bound, 3 Bindings held: PodGroup reported short %.2f s later%n",
                    (System.nanoTime() - deleted) / 1e9);
            gate.release();
            Awaitility.await("the other three bound").atMost(Duration.ofSeconds(60)).until(() -> c.admin.bound(ns, "h-").size() == 3);
            c.staysBound(ns, "h-", 3, Duration.ofSeconds(3));
            assertThat(c.conditions(ns, "h")).noneMatch(s -> s.startsWith("Scheduled=True"))
                    .anyMatch(s -> s.startsWith("Unschedulable=True NotEnoughTasks"));

            c.admin.members(ns, "h", 4, 1, "2", "1Gi"); // a replacement joins the three; then the gang is whole
            Awaitility.await("replacement bound").atMost(Duration.ofSeconds(60)).until(() -> c.admin.bound(ns, "h-").size() == 4);
            Awaitility.await("scheduled once whole").atMost(Duration.ofSeconds(30))
                    .until(() -> c.conditions(ns, "h").stream().anyMatch(s -> s.startsWith("Scheduled=True")));
        }
    }
}
