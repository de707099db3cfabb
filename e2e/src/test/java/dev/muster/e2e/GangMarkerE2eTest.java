package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * kube-scheduler binds through Muster only the gang members the chart's MutatingAdmissionPolicy marked with
 * {@code muster.dev/gang} (the bind extender's managedResources, extender-config/scheduler-config.yaml), and binds every
 * other pod itself; a gang member the policy missed is refused at filter, never bound outside its gang's barrier.
 */
class GangMarkerE2eTest extends RealClusterTest {
    @Test
    void gangMembersAreBoundThroughMusterAndSinglePodsByKubeSchedulerItself() {
        long binds = bindCalls();
        c.admin.podGroup(ns, "g", 3, "default", Map.of());
        c.admin.members(ns, "g", 0, 3, "1", "1Gi");
        c.admin.pod(ns, "s-0", null, "1", "1Gi");
        c.admin.pod(ns, "s-1", null, "1", "1Gi");
        V1Pod otherScheduler = c.admin.pod(ns, "other", "g", "1", "1Gi", "default-scheduler", null);

        for (V1Pod p : c.admin.pods(ns)) {
            String name = p.getMetadata().getName();
            assertThat(Kube.gangMarked(p)).as("pod %s marked", name).isEqualTo(name.startsWith("g-"));
        }
        assertThat(Kube.gangMarked(otherScheduler)).as("a gang member of another scheduler is left alone").isFalse();
        long t = System.nanoTime();
        c.awaitBound(ns, "g-", 3, t);
        c.awaitBound(ns, "s-", 2, t);
        assertThat(bindCalls() - binds).as("bind verb calls: the three gang members only").isEqualTo(3);
        Awaitility.await("muster's ledger holds all five pods").atMost(Duration.ofSeconds(30))
                .until(() -> c.extender.gauge("muster_ledger_pods") >= 5);
        c.admin.deleteNow(ns, "other");
    }

    @Test
    void aGangMemberThePolicyMissedIsRefusedAtFilterWithTheReasonAndNeverBound() {
        c.install.removeGangMarker();
        try {
            c.admin.podGroup(ns, "u", 2, "default", Map.of());
            c.admin.members(ns, "u", 0, 2, "1", "1Gi");
            assertThat(c.admin.pods(ns)).noneMatch(Kube::gangMarked);
            Awaitility.await("u-0 refused for want of the marker").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> unschedulableMessage("u-0").contains("requests no muster.dev/gang"));
            System.out.println("e2e: unmarked gang member refused: " + unschedulableMessage("u-0"));
            c.staysBound(ns, "u-", 0, Duration.ofSeconds(5));
        } finally {
            c.install.restoreGangMarker();
        }
        // re-created once the policy is back, the members are marked and the gang binds whole
        c.admin.deleteNow(ns, "u-0");
        c.admin.deleteNow(ns, "u-1");
        Awaitility.await("unmarked members gone").atMost(Duration.ofSeconds(30)).until(() -> c.admin.pods(ns).isEmpty());
        c.admin.members(ns, "u", 2, 2, "1", "1Gi");
        c.awaitBound(ns, "u-", 2, System.nanoTime());
    }

    /** The message of {@code pod}'s PodScheduled=False condition, or "". */
    private String unschedulableMessage(String pod) {
        V1Pod p = Kube.call("read pod " + pod, () -> c.admin.core().readNamespacedPod(pod, ns).execute());
        List<V1PodCondition> conditions = p.getStatus() == null || p.getStatus().getConditions() == null ? List.of() : p.getStatus().getConditions();
        return conditions.stream().filter(cond -> "PodScheduled".equals(cond.getType()) && "False".equals(cond.getStatus()) && cond.getMessage() != null)
                .map(V1PodCondition::getMessage).findFirst().orElse("");
    }

    /** Calls of the extender's bind verb so far (its latency histogram's count). */
    private long bindCalls() {
        long n = 0;
        for (String line : c.extender.metrics().split("\n")) {
            if (line.startsWith("muster_extender_request_seconds_count{verb=\"bind\"")) {
                n += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return n;
    }
}
