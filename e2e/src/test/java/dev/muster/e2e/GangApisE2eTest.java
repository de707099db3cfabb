package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two gang APIs besides Volcano's on the real control plane: Kubernetes' own PodGroup ({@code scheduling.k8s.io/v1alpha2},
 * served because the API server runs with the GenericWorkload and GangScheduling gates; kube-scheduler runs with the chart's
 * flags, which keep them off, so Muster is the only gang scheduler and its controller the only status writer) and scheduler-plugins' ({@code scheduling.x-k8s.io/v1alpha1},
 * whose CRD is applied here, after Muster started, so Muster must discover it later). Each: a gang bound whole, a competing pair
 * that ends whole/zero, and status written in the API's own shape by the controller only (scheduler-plugins' with
 * {@code scheduled} and {@code occupiedBy}); a live {@code minMember} change; a Kubernetes PodGroup whose Workload template
 * is gone is held with a reason until the Workload is back.
 */
class GangApisE2eTest extends RealClusterTest {
    private static final Object CRD_LOCK = new Object();
    private static boolean crdApplied;

    @BeforeEach
    void schedulerPluginsCrdAppearsAfterMusterStarted() {
        synchronized (CRD_LOCK) {
            if (!crdApplied) {
                c.admin.crd(Path.of("src/test/resources/scheduler-plugins/scheduling.x-k8s.io_podgroups.yaml"));
                crdApplied = true;
            }
        }
    }

    @Test
    void kubernetesPodGroupGangBindsWholeAndTheControllerWritesItsCondition() {
        c.admin.kubernetesPodGroup(ns, "train", 4, Map.of());
        for (int i = 0; i < 4; i++) {
            c.admin.podIn(ns, "train-" + i, null, null, "train", "2", "1Gi");
        }
        c.awaitBound(ns, "train-", 4, System.nanoTime());
        Awaitility.await("PodGroupScheduled=True").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> k8sConditions("train").stream().anyMatch(s -> s.startsWith("PodGroupScheduled=True Scheduled")));
        assertThat(statusWriters(Kube.K8S_GROUP, Kube.K8S_VERSION, "train")).containsExactly("muster-controller");
    }

    @Test
    void kubeSchedulerRunsWithTheChartsGatesOffWhileTheApiServerHasThemOn() throws java.io.IOException {
        assertThat(c.install.schedulerFlags("--feature-gates=")).containsExactly("--feature-gates=GangScheduling=false,GenericWorkload=false");
        assertThat(java.nio.file.Files.readString(c.scheduler.log()))
                .contains("FLAG: --feature-gates=\":GangScheduling=false,:GenericWorkload=false\"");
        assertThat(java.nio.file.Files.readString(c.cp.dataDir().resolve("kube-apiserver.log")))
                .contains("FLAG: --feature-gates=\":GenericWorkload=true,:GangScheduling=true\"");
    }

    @Test
    void twoKubernetesGangsThatCannotBothFitEndWholeAndZero() {
        c.admin.kubernetesPodGroup(ns, "a", 6, Map.of());
        c.admin.kubernetesPodGroup(ns, "b", 6, Map.of());
        for (int i = 0; i < 6; i++) {
            c.admin.podIn(ns, "a-" + i, null, null, "a", "4", "1Gi");
            c.admin.podIn(ns, "b-" + i, null, null, "b", "4", "1Gi");
        }
        String loser = wholeAndZero();
        String why = "gang " + ns + "/" + loser + ": needs 6×(4 cpu, 1Gi memory), fits 2";
        Awaitility.await("PodGroupScheduled=False on the loser").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> k8sConditions(loser).stream().anyMatch(s -> s.startsWith("PodGroupScheduled=False Unschedulable") && s.contains(why)));
    }

    @Test
    void schedulerPluginsGangIsPickedUpBindsWholeAndGetsItsPhase() {
        awaitSchedulerPluginsServed();
        c.admin.schedulerPluginsPodGroup(ns, "sp", 3, Map.of("scheduleTimeoutSeconds", 60));
        for (int i = 0; i < 3; i++) {
            c.admin.podIn(ns, "sp-" + i, null, "sp", null, "2", "1Gi");
            c.admin.owner(ns, "sp-" + i, "trainer");
        }
        c.awaitBound(ns, "sp-", 3, System.nanoTime());
        Awaitility.await("phase Scheduling (bound; no kubelet runs them), 3 scheduled, occupied by the pods' owner")
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(spStatus("sp")).containsEntry("phase", "Scheduling").containsKey("scheduleStartTime")
                        .containsEntry("occupiedBy", ns + "/trainer")
                        .hasEntrySatisfying("scheduled", n -> assertThat(((Number) n).intValue()).isEqualTo(3)));
        assertThat(statusWriters(Kube.SP_GROUP, Kube.SP_VERSION, "sp")).containsExactly("muster-controller");
    }

    @Test
    void twoSchedulerPluginsGangsThatCannotBothFitEndWholeAndZero() {
        awaitSchedulerPluginsServed();
        c.admin.schedulerPluginsPodGroup(ns, "a", 6, Map.of());
        c.admin.schedulerPluginsPodGroup(ns, "b", 6, Map.of());
        for (int i = 0; i < 6; i++) {
            c.admin.podIn(ns, "a-" + i, null, "a", null, "4", "1Gi");
            c.admin.podIn(ns, "b-" + i, null, "b", null, "4", "1Gi");
        }
        String loser = wholeAndZero();
        String winner = loser.equals("a") ? "b" : "a";
        Awaitility.await("winner Scheduling, loser Pending").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    assertThat(spStatus(winner)).as("winner").containsEntry("phase", "Scheduling");
                    assertThat(spStatus(loser)).as("loser").containsEntry("phase", "Pending");
                });
    }

    @Test
    void aLiveMinMemberChangeIsHonoured() {
        awaitSchedulerPluginsServed();
        c.admin.schedulerPluginsPodGroup(ns, "grow", 4, Map.of());
        for (int i = 0; i < 3; i++) {
            c.admin.podIn(ns, "grow-" + i, null, "grow", null, "1", "1Gi");
        }
        c.staysBound(ns, "grow-", 0, Duration.ofSeconds(8)); // 3 of 4: the gang waits
        c.admin.patchSchedulerPluginsMinMember(ns, "grow", 3);
        c.awaitBound(ns, "grow-", 3, System.nanoTime());
    }

    @Test
    void aKubernetesPodGroupWhoseWorkloadIsGoneIsNotScheduledAndSaysWhyUntilTheWorkloadIsBack() {
        awaitWorkloadsWatched();
        c.admin.workload(ns, "job", "workers", 2);
        c.admin.kubernetesPodGroupFromTemplate(ns, "tpl", 2, "job", "workers"); // the API server checks the template exists
        c.admin.deleteWorkload(ns, "job");
        for (int i = 0; i < 2; i++) {
            c.admin.podIn(ns, "tpl-" + i, null, null, "tpl", "1", "1Gi");
        }
        String why = "gang " + ns + "/tpl: spec.podGroupTemplateRef: Workload " + ns + "/job does not exist";
        Awaitility.await("PodGroupScheduled=False naming the missing Workload").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> k8sConditions("tpl").stream().anyMatch(s -> s.startsWith("PodGroupScheduled=False Unschedulable") && s.contains(why)));
        c.staysBound(ns, "tpl-", 0, Duration.ofSeconds(5));

        c.admin.workload(ns, "job", "workers", 2); // the Workload is back: the gang is resolved again and binds
        c.awaitBound(ns, "tpl-", 2, System.nanoTime());
        Awaitility.await("PodGroupScheduled=True").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> k8sConditions("tpl").stream().anyMatch(s -> s.startsWith("PodGroupScheduled=True Scheduled")));
    }

    @Test
    void schedulerPluginsMinResourcesThatDoNotFitKeepTheGangFromBeingPlanned() {
        awaitSchedulerPluginsServed();
        c.admin.schedulerPluginsPodGroup(ns, "big", 1, Map.of("minResources", Map.of("cpu", "40"))); // the cluster has 32
        c.admin.podIn(ns, "big-0", null, "big", null, "1", "1Gi");
        c.staysBound(ns, "big-", 0, Duration.ofSeconds(8));
    }

    @Test
    void aPodNamingTwoDifferentGroupsIsNotScheduledAndSaysWhy() {
        c.admin.kubernetesPodGroup(ns, "k", 1, Map.of());
        c.admin.podIn(ns, "torn", "v", "k", null, "1", "1Gi");
        Awaitility.await("a FailedScheduling event naming both groups").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.admin.events(ns, "torn").stream().anyMatch(e -> e.startsWith("FailedScheduling")
                        && e.contains("pod names two different groups: \"v\" (annotation scheduling.k8s.io/group-name) and \"k\" (label scheduling.x-k8s.io/pod-group)")));
        assertThat(c.admin.bound(ns, "torn")).isEmpty();
    }

    /** One of gangs a and b ends with all 6 members bound, the other with none (and stays so); returns the loser. */
    private String wholeAndZero() {
        return c.awaitWholeAndZero(ns, 6);
    }

    /** The extender and controller look for APIs again every 30 s: wait until the extender lists the new one. */
    private void awaitSchedulerPluginsServed() {
        Awaitility.await("the extender watches scheduler-plugins PodGroups").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> logSays(c.extender, "watching scheduling.x-k8s.io/v1alpha1 podgroups")
                        && logSays(c.controller, "watching scheduling.x-k8s.io/v1alpha1 podgroups"));
    }

    /** The Workload informers start with the Kubernetes PodGroups' (the API server serves both from the start). */
    private void awaitWorkloadsWatched() {
        Awaitility.await("the extender and controller watch workloads").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> logSays(c.extender, "watching scheduling.k8s.io/v1alpha2 workloads")
                        && logSays(c.controller, "watching scheduling.k8s.io/v1alpha2 workloads"));
    }

    private static boolean logSays(MusterProcess p, String text) throws java.io.IOException {
        return java.nio.file.Files.readString(p.log()).contains(text);
    }

    private List<String> k8sConditions(String name) {
        return Kube.conditionLines(c.admin.object(Kube.K8S_GROUP, Kube.K8S_VERSION, ns, "podgroups", name));
    }

    private Map<String, Object> spStatus(String name) {
        return Kube.status(c.admin.object(Kube.SP_GROUP, Kube.SP_VERSION, ns, "podgroups", name));
    }

    /** The field managers that wrote the object's status subresource. */
    @SuppressWarnings("unchecked")
    private List<String> statusWriters(String group, String version, String name) {
        Map<String, Object> meta = (Map<String, Object>) c.admin.object(group, version, ns, "podgroups", name).get("metadata");
        List<String> out = new java.util.ArrayList<>();
        for (Object o : (List<Object>) meta.getOrDefault("managedFields", List.of())) {
            Map<String, Object> f = (Map<String, Object>) o;
            if ("status".equals(f.get("subresource"))) {
                out.add(String.valueOf(f.get("manager")));
            }
        }
        return out;
    }
}
