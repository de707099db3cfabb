package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Muster's books change in ways kube-scheduler never hears of — a Queue opened or its capability raised — and a pod
 * Muster refused at filter sits in kube-scheduler's
 * unschedulable pool until a cluster event it watches, else its 5-minute flush. Muster wakes such a pod itself (a
 * condition on the pod's status, through the chart's RBAC): these tests park pods in a quiet cluster (no refusal for
 * longer than kube-scheduler's longest backoff, 10 s), make the change, and see the pods bind long before the flush.
 */
class WakeE2eTest extends RealClusterTest {
    /** Longer than kube-scheduler's longest backoff (10 s): a pod not retried for this long is parked, not backing off. */
    private static final Duration PARKED = Duration.ofSeconds(12);

    @Test
    void aGangRefusedForItsClosedQueueBindsWholeShortlyAfterTheQueueIsOpened() {
        String queue = ns + "-shut";
        double seconds = parkThenEdit(queue, Map.of("weight", 1, "state", "Closed"), "late", "1", "Closed", "{\"state\":\"Open\"}");
        System.out.printf("e2e: gang parked for its closed queue: bound whole %.2f s after the Queue was opened%n", seconds);
        assertThat(c.admin.readPod(ns, "late-0").getStatus().getConditions()).anyMatch(cond -> "muster.dev/Retry".equals(cond.getType())
                && cond.getMessage().startsWith("queue " + queue + " changed"));
    }

    @Test
    void aGangLargerThanItsQueuesCapabilityBindsWholeShortlyAfterTheCapabilityIsRaised() {
        // 2 members of 2 cpu: 4 cpu > capability 2
        double seconds = parkThenEdit(ns + "-small", Map.of("weight", 1, "capability", Map.of("cpu", "2")), "big", "2", "capability",
                "{\"capability\":{\"cpu\":\"8\"}}");
        System.out.printf("e2e: gang parked for its queue's capability: bound whole %.2f s after the capability was raised%n", seconds);
    }

    /**
     * A gang of 2 members of {@code cpu} in a new queue of {@code spec}: both refused (their events say {@code refusal}),
     * parked; then the Queue's spec is merge-patched with {@code edit}. Returns the seconds from the edit until both are bound.
     */
    private double parkThenEdit(String queue, Map<String, Object> spec, String gang, String cpu, String refusal, String edit) {
        c.admin.queue(queue, spec);
        c.admin.podGroup(ns, gang, 2, queue, Map.of());
        c.admin.members(ns, gang, 0, 2, cpu, "1Gi");
        Awaitility.await("both members refused: " + refusal).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> c.admin.events(ns, gang + "-0").stream().anyMatch(e -> e.contains(refusal))
                        && c.admin.events(ns, gang + "-1").stream().anyMatch(e -> e.contains(refusal)));
        awaitParked();
        double sent = woken("sent");

        long edited = System.nanoTime();
        c.admin.patchQueueSpec(queue, edit);
        // generous, yet far below kube-scheduler's 5-minute flush of parked pods
        double seconds = c.awaitBound(ns, gang + "-", 2, edited);
        assertThat(woken("sent") - sent).as("pods woken by Muster").isGreaterThanOrEqualTo(2);
        return seconds;
    }

    /** Waits until Muster's filter has refused nothing for {@link #PARKED}: kube-scheduler has parked the refused pods. */
    private void awaitParked() {
        long[] since = {System.nanoTime()};
        double[] last = {refusals()};
        Awaitility.await("refused pods parked").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> {
            double now = refusals();
            if (now != last[0]) {
                last[0] = now;
                since[0] = System.nanoTime();
            }
            return System.nanoTime() - since[0] > PARKED.toNanos();
        });
    }

    /** How often Muster's filter turned a pod away on every node. */
    private double refusals() {
        return c.extender.metrics().lines().filter(l -> l.startsWith("muster_extender_decisions_total{")
                        && l.contains("verb=\"filter\"") && (l.contains("outcome=\"unfit\"") || l.contains("outcome=\"unresolvable\"")))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** {@code muster_pods_woken_total{outcome}}. */
    private double woken(String outcome) {
        return c.extender.metrics().lines().filter(l -> l.startsWith("muster_pods_woken_total{") && l.contains("outcome=\"" + outcome + "\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
