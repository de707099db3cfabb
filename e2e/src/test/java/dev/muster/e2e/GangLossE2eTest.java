package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.CoreV1Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A gang bound whole that later loses a bound member: the controller (with the chart's RBAC, through its ServiceAccount)
 * records one {@code GangBelowMinimum} Event on the PodGroup naming the lost member, for Volcano's PodGroup and for
 * Kubernetes' own ({@code scheduling.k8s.io/v1alpha2}), whose {@code PodGroupScheduled} condition stops being True
 * while fewer than {@code minCount} members are bound; a replacement bound with the others brings {@code GangWhole}.
 */
class GangLossE2eTest extends RealClusterTest {

    @Test
    void aVolcanoGangThatLosesABoundMemberGetsAnEventOnItsPodGroup() {
        c.admin.podGroup(ns, "vol", 3, "default", Map.of());
        c.admin.members(ns, "vol", 0, 3, "1", "1Gi");
        c.awaitBound(ns, "vol-", 3, System.nanoTime());
        awaitPhase("vol", "Running");

        c.admin.deleteNow(ns, "vol-1");
        CoreV1Event e = awaitEvent("vol", "GangBelowMinimum");
        assertThat(e.getMessage()).isEqualTo("2 of minimum 3 members bound; lost: " + ns + "/vol-1");
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getReportingComponent()).isEqualTo("muster.dev/controller");
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("PodGroup");
        assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("scheduling.volcano.sh/v1beta1");
        assertThat(e.getInvolvedObject().getNamespace()).isEqualTo(ns);
    }

    @Test
    void aKubernetesGangThatLosesABoundMemberGetsAnEventAndItsScheduledConditionFollowsTheMembers() {
        c.admin.kubernetesPodGroup(ns, "k8s", 4, Map.of());
        for (int i = 0; i < 4; i++) {
            c.admin.podIn(ns, "k8s-" + i, null, null, "k8s", "1", "1Gi");
        }
        c.awaitBound(ns, "k8s-", 4, System.nanoTime());
        Awaitility.await("PodGroupScheduled=True").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> scheduledCondition("k8s").equals("True"));

        c.admin.deleteNow(ns, "k8s-2");
        CoreV1Event loss = awaitEvent("k8s", "GangBelowMinimum");
        assertThat(loss.getMessage()).isEqualTo("3 of minimum 4 members bound; lost: " + ns + "/k8s-2");
        assertThat(loss.getReportingComponent()).isEqualTo("muster.dev/controller");
        assertThat(loss.getInvolvedObject().getApiVersion()).isEqualTo(Kube.K8S_GROUP + "/" + Kube.K8S_VERSION);
        Awaitility.await("PodGroupScheduled no longer True").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> !scheduledCondition("k8s").equals("True"));

        c.admin.podIn(ns, "k8s-9", null, null, "k8s", "1", "1Gi");
        c.awaitBound(ns, "k8s-", 4, System.nanoTime());
        CoreV1Event whole = awaitEvent("k8s", "GangWhole");
        assertThat(whole.getMessage()).isEqualTo("4 of minimum 4 members bound; whole again");
        assertThat(whole.getType()).isEqualTo("Normal");
        Awaitility.await("PodGroupScheduled=True again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> scheduledCondition("k8s").equals("True"));
        assertThat(eventsAbout("k8s")).as("one Event per crossing").extracting(CoreV1Event::getReason)
                .containsExactlyInAnyOrder("GangBelowMinimum", "GangWhole");
    }

    private CoreV1Event awaitEvent(String podGroup, String reason) {
        return Awaitility.await(reason + " Event on podgroup " + ns + "/" + podGroup).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> eventsAbout(podGroup).stream().filter(e -> reason.equals(e.getReason())).findFirst().orElse(null),
                        java.util.Objects::nonNull);
    }

    private List<CoreV1Event> eventsAbout(String podGroup) {
        return Kube.call("list events in " + ns, () -> c.admin.core().listNamespacedEvent(ns)
                .fieldSelector("involvedObject.name=" + podGroup + ",involvedObject.kind=PodGroup").execute()).getItems();
    }

    private void awaitPhase(String podGroup, String phase) {
        Awaitility.await("podgroup " + podGroup + " " + phase).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> phase.equals(Kube.status(c.admin.podGroupObject(ns, podGroup)).get("phase")));
    }

    /** The status of the PodGroupScheduled condition, or "" when there is none. */
    @SuppressWarnings("unchecked")
    private String scheduledCondition(String name) {
        Object cs = Kube.status(c.admin.object(Kube.K8S_GROUP, Kube.K8S_VERSION, ns, "podgroups", name)).get("conditions");
        if (cs instanceof List<?> list) {
            for (Object o : list) {
                Map<String, Object> m = (Map<String, Object>) o;
                if ("PodGroupScheduled".equals(m.get("type"))) {
                    return String.valueOf(m.get("status"));
                }
            }
        }
        return "";
    }
}
