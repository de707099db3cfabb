package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Gangs competing for the 8 nodes × 4 cpu of the shared cluster, on the real kube-scheduler. */
class CapacityE2eTest extends RealClusterTest {
    @Test
    void twoGangsThatCannotBothFitEndOneWholeAndTheOtherWithNothingAndAReason() {
        c.admin.podGroup(ns, "a", 6, "default", Map.of());
        c.admin.podGroup(ns, "b", 6, "default", Map.of());
        for (int i = 0; i < 6; i++) { // interleaved, as a busy queue offers them
            c.admin.pod(ns, "a-" + i, "a", "4", "1Gi");
            c.admin.pod(ns, "b-" + i, "b", "4", "1Gi");
        }
        String loser = c.awaitWholeAndZero(ns, 6);

        String why = "gang " + ns + "/" + loser + ": needs 6×(4 cpu, 1Gi memory), fits 2";
        Awaitility.await("the reason in the PodGroup's conditions").atMost(Duration.ofSeconds(30))
                .until(() -> c.conditions(ns, loser).stream().anyMatch(s -> s.startsWith("Unschedulable=True") && s.contains(why)));
        List<String> events = c.admin.events(ns, loser + "-0");
        assertThat(events).anyMatch(e -> e.startsWith("FailedScheduling") && (e.contains(why) || e.contains("Insufficient cpu")));
        assertThat(c.cpuPerNode().values()).allMatch(m -> m <= 4000);
    }

    @Test
    void gangThatFitsOnlyOnceARunningPodIsDeletedBindsRightAfterTheDelete() {
        c.admin.pod(ns, "hog", null, "1", "1Gi");
        c.awaitBound(ns, "hog", 1, System.nanoTime());
        c.admin.podGroup(ns, "big", 8, "default", Map.of());
        c.admin.members(ns, "big", 0, 8, "4", "1Gi");
        c.staysBound(ns, "big-", 0, Duration.ofSeconds(8));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> c.conditions(ns, "big").stream()
                .anyMatch(s -> s.contains("needs 8×(4 cpu, 1Gi memory), fits 7")));

        long deleted = System.nanoTime();
        c.admin.deleteNow(ns, "hog");
        double s = c.awaitBound(ns, "big-", 8, deleted);
        System.out.printf("e2e: gang of 8 that fits only after a delete: all bound %.2f s after the delete%n", s);
        assertThat(c.cpuPerNode().values()).allMatch(m -> m <= 4000);
    }

    @Test
    void memberThatNeverArrivesLeavesNothingBoundReleasesTheRoomAndSaysWhy() {
        c.admin.podGroup(ns, "late", 4, "default", Map.of("muster.dev/gang-deadline", "5s"));
        c.admin.members(ns, "late", 0, 3, "1", "1Gi");
        String why = "gang " + ns + "/late: deadline passed with 3/4 members bound or waiting";
        Awaitility.await("the deadline reason on a member").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500))
                .until(() -> c.admin.events(ns, "late-0").stream().anyMatch(e -> e.contains(why)));
        assertThat(c.admin.bound(ns, "late-")).isEmpty();
        // between attempts (backoff) the room is released: a reservation is not held
        Awaitility.await("reservation released").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> c.extender.gauge("muster_reservations") == 0);
        Awaitility.await("the reason in the PodGroup's conditions").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.conditions(ns, "late").stream().anyMatch(s -> s.contains("deadline passed with 3/4")));
        c.staysBound(ns, "late-", 0, Duration.ofSeconds(3));
    }

    @Test
    void podsPlacedByOthersIntoReservedRoomNeverLeaveAGangPartlyBound() {
        // overcommit is a state: pods that name their node bypass every scheduler, also into room Muster reserved
        c.admin.podGroup(ns, "g", 4, "default", Map.of());
        c.admin.members(ns, "g", 0, 3, "4", "1Gi"); // waits for its 4th member, holding 4 whole nodes
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> c.extender.gauge("muster_waiting_binds") == 3);
        for (int i = 0; i < E2eCluster.NODES; i++) {
            c.admin.pod(ns, "byhand-" + i, null, "2", "1Gi", "default-scheduler", "node-" + i);
        }
        c.admin.members(ns, "g", 3, 1, "4", "1Gi");
        c.staysBound(ns, "g-", 0, Duration.ofSeconds(8)); // no node has 4 cpu free: nothing of the gang binds
        for (int i = 0; i < E2eCluster.NODES; i++) {
            c.admin.deleteNow(ns, "byhand-" + i);
        }
        long t = System.nanoTime();
        // (the 4 Bindings go out together but not atomically: only the settled state is all or nothing)
        Awaitility.await("gang whole").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> c.admin.bound(ns, "g-").size() == 4);
        System.out.printf("e2e: gang whose room was taken by pods with spec.nodeName: bound %.2f s after they were deleted%n",
                (System.nanoTime() - t) / 1e9);
        assertThat(c.cpuPerNode().values()).allMatch(m -> m <= 4000);
    }
}
