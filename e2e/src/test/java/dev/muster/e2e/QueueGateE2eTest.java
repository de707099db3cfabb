package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSchedulingGate;
import io.kubernetes.client.util.PatchUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The queue-admission gate on its own real control plane: the chart installed with {@code extender.queueGate.enabled},
 * the extender with {@code --queue-admission-gate=true} and its ServiceAccount's token, the controller, an unmodified
 * kube-scheduler and kube-controller-manager, four hollow kubelets; gangs are Indexed Jobs joined to a PodGroup. A gang
 * its queue's capability holds back stays behind Muster's gate — kube-scheduler never tries its pods, so none is
 * reported unschedulable, its PodGroup says it waits for its queue, and each pod gets an Event saying so — until the
 * capability is raised; then it is lifted, binds whole and runs. A pod with a gate of someone else's stays gated; a user cannot remove Muster's gate; the
 * extender's token cannot remove another gate.
 */
@RealControlPlane
class QueueGateE2eTest {
    private static final String GATE = "muster.dev/queue-admission";
    private static final String FOREIGN = "example.com/hold";
    private static final String EXTENDER = "muster.dev/extender";

    @Test
    void aGangHeldByItsQueueStaysGatedUntilTheQueueAdmitsItThenBindsWholeAndRuns() throws Exception {
        Path dir = Files.createTempDirectory("muster-e2e-gate-");
        ControlPlane.Options env = ControlPlane.Options.fromEnvironment(dir);
        String version = System.getProperty("muster.version", "0.1.0-SNAPSHOT");
        List<AutoCloseable> running = new ArrayList<>();
        try {
            ControlPlane cp = ControlPlane.start(env);
            running.add(cp);
            Kube admin = new Kube(cp.adminClient());
            Workloads workloads = new Workloads(cp.adminClient());
            MusterInstall install = MusterInstall.install(cp, E2eCluster.REPO.resolve("charts/muster"),
                    Map.of("extender.queueGate.enabled", true));
            running.add(KubeControllerManager.start(cp, List.of())); // Jobs make the pods; node lifecycle lifts the not-ready taint
            List<HollowNode> nodes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                HollowNode n = HollowNode.start(cp, "hollow-" + i, Map.of());
                running.add(n);
                nodes.add(n);
            }
            for (HollowNode n : nodes) {
                n.awaitReady(admin, Duration.ofSeconds(120));
            }
            MusterStack muster = MusterStack.start(E2eCluster.REPO, version, cp, install, List.of("--queue-admission-gate=true"), dir);
            running.add(muster);
            String ns = admin.namespace("gate");
            admin.queue("research", Map.of("weight", 1, "capability", Map.of("cpu", "2")));
            awaitGatedAtCreation(admin, ns);
            Awaitility.await("the hollow nodes untainted by kube-controller-manager").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> admin.core().listNode().execute().getItems().stream().allMatch(n -> n.getSpec().getTaints() == null
                            || n.getSpec().getTaints().isEmpty()));

            // the queue admits the first gang, a Job: lifted by the extender's token, bound whole, Running on the kubelets
            admin.podGroup(ns, "first", 2, "research", Map.of());
            workloads.indexedJob(ns, "first", 2, new Workloads.PodTemplate("first", "1", "1Gi", 0), false);
            Awaitility.await("first bound whole and Running").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                    .until(() -> runningPods(admin, ns, "job=first") == 2);
            assertThat(admin.pods(ns, "job=first")).allSatisfy(p -> assertThat(gates(p)).isEmpty());
            for (V1Pod p : admin.pods(ns, "job=first")) {
                String pod = p.getMetadata().getName();
                Awaitility.await(pod + " told its gate was lifted: it was created behind it").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(250)).until(() -> admin.eventsFrom(ns, pod, EXTENDER).contains("GateLifted: gang " + ns
                                + "/first: admitted by queue research; scheduling gate " + GATE + " lifted"));
            }

            // the second is held by its queue's capability: gated, tried by nobody, told why
            admin.podGroup(ns, "second", 2, "research", Map.of());
            workloads.indexedJob(ns, "second", 2, new Workloads.PodTemplate("second", "1", "1Gi", 0), false);
            Awaitility.await("second's PodGroup says it waits for its queue").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> String.join("\n", Kube.conditionLines(admin.podGroupObject(ns, "second"))).contains("waiting for queue research"));
            Awaitility.await("the Job made both of second's pods").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> admin.pods(ns, "job=second").size() == 2);
            List<String> second = admin.pods(ns, "job=second").stream().map(p -> p.getMetadata().getName()).sorted().toList();
            Awaitility.await("second stays gated and nobody reports it unschedulable").during(Duration.ofSeconds(8))
                    .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                    .until(() -> second.stream().map(n -> admin.readPod(ns, n))
                            .allMatch(p -> gates(p).equals(List.of(GATE)) && !reportedUnschedulable(p) && p.getSpec().getNodeName() == null));
            assertThat(muster.extender().counter("muster_gangs_gated", "cause", "queue")).as("muster_gangs_gated{cause=queue}").isEqualTo(1);
            // and each of its pods is told so by an Event from the extender (its ServiceAccount's token)
            for (String pod : second) {
                Awaitility.await(pod + " gets an Event saying it waits for its queue").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                        .until(() -> admin.eventsFrom(ns, pod, EXTENDER).stream()
                                .anyMatch(e -> e.startsWith("GangWaiting: gang " + ns + "/second: waiting for queue research: ")));
            }
            System.out.println("e2e: second's PodGroup: " + Kube.conditionLines(admin.podGroupObject(ns, "second"))
                    + "; " + second.getFirst() + " PodScheduled: " + scheduledCondition(admin.readPod(ns, second.getFirst()))
                    + "; its events from the extender: " + admin.eventsFrom(ns, second.getFirst(), EXTENDER));

            // a gate of someone else's: Muster never lifts, whatever the queue says
            V1Pod foreign = Kube.podObject(ns, "foreign-0", "foreign", "1", "1Gi", Kube.SCHEDULER_NAME, null);
            foreign.getSpec().schedulingGates(new ArrayList<>(List.of(new V1PodSchedulingGate().name(FOREIGN))));
            admin.podGroup(ns, "foreign", 1, "default", Map.of());
            Kube.call("create foreign-0", () -> admin.core().createNamespacedPod(ns, foreign).execute());
            assertThat(gates(admin.readPod(ns, "foreign-0"))).containsExactlyInAnyOrder(FOREIGN, GATE);

            // a user may not remove Muster's gate (the cluster admin neither: the policy binds everyone but the extender)
            ApiException refused = patchError(admin, ns, second.getFirst(), "[{\"op\":\"remove\",\"path\":\"/spec/schedulingGates/0\"}]");
            assertThat(refused.getCode()).as(refused.getResponseBody()).isEqualTo(403);
            assertThat(refused.getResponseBody()).contains("only Muster's extender may remove the scheduling gate " + GATE);
            // the extender's token may not remove another gate (nor add one)
            String extenderToken = install.tokenFor("extender");
            int foreignIndex = gates(admin.readPod(ns, "foreign-0")).indexOf(FOREIGN);
            Http.Answer other = Http.patch(cp.url() + "/api/v1/namespaces/" + ns + "/pods/foreign-0", extenderToken, "application/json-patch+json",
                    "[{\"op\":\"remove\",\"path\":\"/spec/schedulingGates/" + foreignIndex + "\"}]");
            assertThat(other.status()).as(other.body()).isEqualTo(403);
            assertThat(other.body()).contains("may remove only the scheduling gate " + GATE);
            Http.Answer label = Http.patch(cp.url() + "/api/v1/namespaces/" + ns + "/pods/" + second.get(1), extenderToken,
                    "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
            assertThat(label.status()).as(label.body()).isEqualTo(403);

            // the queue's capability is raised: the gang is lifted, binds whole and runs
            long raised = System.nanoTime();
            admin.patchQueueSpec("research", "{\"capability\":{\"cpu\":\"4\"}}");
            try {
                Awaitility.await("second bound whole after the raise").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                        .until(() -> admin.bound(ns, "second-").size() == 2);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                StringBuilder why = new StringBuilder(e.getMessage());
                for (V1Pod p : admin.pods(ns)) {
                    why.append("\n").append(p.getMetadata().getName()).append(" gates=").append(gates(p)).append(" node=")
                            .append(p.getSpec().getNodeName()).append(" phase=").append(p.getStatus() == null ? null : p.getStatus().getPhase())
                            .append(" PodScheduled=").append(scheduledCondition(p));
                }
                why.append("\nsecond's PodGroup: ").append(Kube.conditionLines(admin.podGroupObject(ns, "second")));
                why.append("\nextender:\n").append(muster.extender().logTail(80));
                throw new AssertionError(why.toString(), e);
            }
            double seconds = (System.nanoTime() - raised) / 1e9;
            Awaitility.await("second Running on the kubelets").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> runningPods(admin, ns, "job=second") == 2);
            System.out.printf("e2e: queue capability raised -> Job gang of 2 lifted and bound whole in %.2f s, Running in %.2f s%n", seconds,
                    (System.nanoTime() - raised) / 1e9);
            Awaitility.await(second.getFirst() + " is told its gate was lifted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> admin.eventsFrom(ns, second.getFirst(), EXTENDER).contains("GateLifted: gang " + ns
                            + "/second: admitted by queue research; scheduling gate " + GATE + " lifted"));
            assertThat(admin.eventsFrom(ns, second.getFirst(), EXTENDER)).as("told once while it waited, once when lifted").hasSize(2);
            assertThat(admin.eventsFrom(ns, "foreign-0", EXTENDER)).as("a gang Muster does not lift is told nothing").isEmpty();
            assertThat(gates(admin.readPod(ns, "foreign-0"))).as("still behind both gates").containsExactlyInAnyOrder(FOREIGN, GATE);
            assertThat(admin.readPod(ns, "foreign-0").getSpec().getNodeName()).isNull();
            assertThat(muster.extender().counter("muster_gangs_gated", "cause", "foreign-gate")).isEqualTo(1);
        } finally {
            for (int i = running.size() - 1; i >= 0; i--) {
                running.get(i).close();
            }
        }
    }

    private static long runningPods(Kube admin, String ns, String selector) {
        return admin.pods(ns, selector).stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
    }

    /** Waits until the chart's gate policy gates a gang member created now (a dry-run creation, nothing stored). */
    private static void awaitGatedAtCreation(Kube admin, String ns) {
        Awaitility.await("the queue gate policy gates gang members").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> gates(Kube.call("dry-run member", () -> admin.core().createNamespacedPod(ns,
                        Kube.podObject(ns, "probe", "g", "1m", "1Mi", Kube.SCHEDULER_NAME, null)).dryRun("All").execute())).contains(GATE));
        // and the lift policy refuses a user's removal (asked as a dry run until it takes effect)
        Awaitility.await("the lift policy is in force").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            V1Pod probe = Kube.podObject(ns, "probe-lift", "g", "1m", "1Mi", Kube.SCHEDULER_NAME, null);
            Kube.call("create probe", () -> admin.core().createNamespacedPod(ns, probe).execute());
            try {
                return dryRunPatchRefused(admin, ns, "probe-lift");
            } finally {
                admin.deleteNow(ns, "probe-lift");
            }
        });
    }

    private static boolean dryRunPatchRefused(Kube admin, String ns, String pod) {
        try {
            PatchUtils.patch(V1Pod.class, () -> admin.core().patchNamespacedPod(pod, ns,
                    new V1Patch("[{\"op\":\"remove\",\"path\":\"/spec/schedulingGates/0\"}]")).dryRun("All").buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_PATCH, admin.core().getApiClient());
            return false;
        } catch (ApiException e) {
            return e.getCode() == 403;
        }
    }

    /** The error of a JSON patch of {@code pod} by the cluster admin; fails if the patch is accepted. */
    private static ApiException patchError(Kube admin, String ns, String pod, String jsonPatch) {
        try {
            PatchUtils.patch(V1Pod.class, () -> admin.core().patchNamespacedPod(pod, ns, new V1Patch(jsonPatch)).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_PATCH, admin.core().getApiClient());
        } catch (ApiException e) {
            return e;
        }
        throw new AssertionError("the patch of " + pod + " was accepted: " + jsonPatch);
    }

    private static List<String> gates(V1Pod p) {
        return p.getSpec().getSchedulingGates() == null ? List.of()
                : p.getSpec().getSchedulingGates().stream().map(V1PodSchedulingGate::getName).toList();
    }

    /**
     * kube-scheduler reported the pod unschedulable: PodScheduled=False with reason Unschedulable, what cluster-autoscaler
     * and Karpenter act on. (A gated pod has PodScheduled=False with reason SchedulingGated from the API server, which
     * they ignore.)
     */
    private static boolean reportedUnschedulable(V1Pod p) {
        return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && !"SchedulingGated".equals(c.getReason()));
    }

    private static String scheduledCondition(V1Pod p) {
        return p.getStatus() == null || p.getStatus().getConditions() == null ? "none" : p.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType())).map(c -> c.getStatus() + " " + c.getReason()).findFirst().orElse("none");
    }
}
