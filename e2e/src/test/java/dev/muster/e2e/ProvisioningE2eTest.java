package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodTemplate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * All-or-nothing scale-up on the real control plane: cluster-autoscaler's ProvisioningRequest CRD (v1, as it ships),
 * the chart installed with {@code extender.provisioning.enabled} and {@code extender.queueGate.enabled}, the extender
 * with {@code --provisioning}, {@code --queue-admission-gate} and its ServiceAccount's token, the controller, an unmodified kube-scheduler, two hollow kubelets, and a {@link TestProvisioner} standing in
 * for cluster-autoscaler (a budget of {@value #BUDGET} more nodes). Each gang's pods select nodes by a label no node
 * has yet ({@code pool}), so each needs nodes of its own; {@code provisioner: hold} makes a request that stays pending.
 */
@RealControlPlane
class ProvisioningE2eTest {
    static final int BUDGET = 3;
    private static final String EXTENDER = "muster.dev/extender";
    private static ControlPlane cp;
    private static Kube admin;
    private static final List<HollowNode> nodes = new java.util.ArrayList<>();
    private static MusterStack muster;
    private static TestProvisioner provisioner;
    private static int namespaces;
    private String ns;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("muster-e2e-provisioning-");
        ControlPlane.Options env = ControlPlane.Options.fromEnvironment(dir);
        cp = ControlPlane.start(new ControlPlane.Options(env.binaries(), env.dataDir(), env.keepData(), List.of()));
        admin = new Kube(cp.adminClient());
        admin.crd(E2eCluster.REPO.resolve("e2e/src/test/resources/provisioning/autoscaling.x-k8s.io_provisioningrequests.yaml"));
        MusterInstall install = MusterInstall.install(cp, E2eCluster.REPO.resolve("charts/muster"), Map.of("extender.provisioning.enabled", true,
                "extender.queueGate.enabled", true));
        for (int i = 0; i < 2; i++) {
            nodes.add(HollowNode.start(cp, "hollow-" + i, Map.of()));
        }
        for (HollowNode n : nodes) {
            n.awaitReady(admin, Duration.ofSeconds(120));
            admin.untaint(n.name()); // no kube-controller-manager here: its node lifecycle controller would lift the not-ready taint
        }
        muster = MusterStack.start(E2eCluster.REPO, System.getProperty("muster.version", "0.1.0-SNAPSHOT"), cp, install,
                List.of("--provisioning=true", "--queue-admission-gate=true"), dir);
        provisioner = new TestProvisioner(cp, admin, BUDGET, new dev.muster.core.time.Backoff(Duration.ofMillis(200), Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stop() {
        if (provisioner != null) {
            provisioner.close();
        }
        if (muster != null) {
            muster.close();
        }
        nodes.forEach(HollowNode::close);
        if (cp != null) {
            cp.close();
        }
    }

    @AfterEach
    void saySomethingWhenItFailed() {
        if (provisioner.failure() != null) {
            System.out.println("test provisioner's last failure: " + provisioner.failure());
        }
    }

    private String namespace(String hint) {
        ns = admin.namespace(hint + "-" + (++namespaces));
        return ns;
    }

    /** A gang of {@code n} pods of {@code cpu} that run only on nodes labelled {@code selector}. */
    private void gang(String name, int n, String cpu, Map<String, String> selector) {
        admin.podGroup(ns, name, n, "default", Map.of());
        for (int i = 0; i < n; i++) {
            V1Pod p = Kube.podObject(ns, name + "-" + i, name, cpu, "64Mi", Kube.SCHEDULER_NAME, null);
            p.getSpec().nodeSelector(selector);
            Kube.call("create pod", () -> admin.core().createNamespacedPod(ns, p).execute());
        }
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> requests() {
        Map<String, Object> list = (Map<String, Object>) Kube.call("list requests", () -> admin.custom()
                .listNamespacedCustomObject(TestProvisioner.GROUP, "v1", ns, TestProvisioner.PLURAL).execute());
        return (List<Map<String, Object>>) list.get("items");
    }

    private static String name(Map<String, Object> o) {
        return String.valueOf(((Map<?, ?>) o.get("metadata")).get("name"));
    }

    private List<String> requestNames() {
        return requests().stream().map(ProvisioningE2eTest::name).toList();
    }

    /** The request's True conditions, as "Type Reason: message" lines. */
    private List<String> conditions(String request) {
        return requests().stream().filter(r -> name(r).equals(request)).flatMap(r -> Kube.conditionLines(r).stream())
                .filter(l -> l.contains("=True ")).map(l -> l.replace("=True", "")).toList();
    }

    private List<String> templates() {
        return Kube.call("list templates", () -> admin.core().listNamespacedPodTemplate(ns).execute()).getItems().stream()
                .map(V1PodTemplate::getMetadata).map(m -> m.getName()).toList();
    }

    private static String extenderLog() {
        try {
            return Files.readString(muster.extender().log());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<V1Pod> pods(String prefix) {
        return Kube.call("list pods", () -> admin.core().listNamespacedPod(ns).execute()).getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith(prefix)).toList();
    }

    private long bound(String prefix) {
        return admin.bound(ns, prefix).size();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aGangLargerThanTheClusterGetsOneRequestAndBindsWholeOnTheNodesProvisionedForIt() {
        namespace("larger");
        gang("train", 3, "600m", Map.of("pool", "a"));
        try {
            Awaitility.await("train's PodGroup says it waits for the autoscaler").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> String.join("\n", Kube.conditionLines(admin.podGroupObject(ns, "train"))).contains("from the autoscaler"));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; PodGroup: " + Kube.conditionLines(admin.podGroupObject(ns, "train")) + "; requests: "
                    + requestNames() + "; extender:\n" + muster.extender().logTail(60), e);
        }
        assertThat(pods("train-")).as("every member still behind Muster's gate while its nodes are bought: no autoscaler sees it")
                .allSatisfy(p -> assertThat(p.getSpec().getSchedulingGates()).extracting(g -> g.getName()).containsExactly("muster.dev/queue-admission"));
        assertThat(bound("train-")).isZero();
        for (int i = 0; i < 3; i++) {
            String pod = "train-" + i;
            Awaitility.await(pod + " gets an Event saying it waits for the autoscaler").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> admin.eventsFrom(ns, pod, EXTENDER).stream().anyMatch(e -> e.startsWith("GangWaiting: gang " + ns
                            + "/train: waiting for 3 nodes from the autoscaler (ProvisioningRequest " + ns + "/train-1: ")));
        }
        // a rival of Muster's scheduler that would fit one of the new nodes, created while the request is pending
        V1Pod rival = Kube.podObject(ns, "rival", null, "600m", "64Mi", Kube.SCHEDULER_NAME, null);
        rival.getSpec().nodeSelector(Map.of("pool", "a"));
        Kube.call("create rival", () -> admin.core().createNamespacedPod(ns, rival).execute());
        Awaitility.await("one ProvisioningRequest for train, Provisioned").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200))
                .until(() -> conditions("train-1").stream().anyMatch(c -> c.startsWith("Provisioned CapacityIsProvisioned")));
        assertThat(requestNames()).containsExactly("train-1");
        Map<String, Object> spec = (Map<String, Object>) requests().getFirst().get("spec");
        assertThat(spec).containsEntry("provisioningClassName", TestProvisioner.ATOMIC);
        assertThat((List<Map<String, Object>>) spec.get("podSets")).as("one pod set of 3").singleElement()
                .satisfies(set -> assertThat(((Number) set.get("count")).intValue()).isEqualTo(3))
                .satisfies(set -> assertThat(set.get("podTemplateRef")).isEqualTo(Map.of("name", "train-1-0")));
        assertThat(templates()).containsExactly("train-1-0");
        long[] lifted = {0};
        try {
            Awaitility.await("the gang bound whole on the new nodes, the rival on none of them before").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(50)).until(() -> {
                        String rivalNode = admin.readPod(ns, "rival").getSpec().getNodeName();
                        List<V1Pod> members = pods("train-");
                        if (lifted[0] == 0 && members.stream().allMatch(p -> p.getSpec().getSchedulingGates() == null
                                || p.getSpec().getSchedulingGates().isEmpty())) {
                            lifted[0] = System.nanoTime();
                        }
                        long train = members.stream().filter(p -> p.getSpec().getNodeName() != null).count();
                        if (rivalNode != null && rivalNode.startsWith("prov-") && train < 3) {
                            throw new AssertionError("the rival took " + rivalNode + ", one of the nodes bought for train, before train bound whole ("
                                    + admin.bound(ns, "train-") + ")");
                        }
                        return train == 3;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; bound: " + admin.bound(ns, "train-") + "; extender:\n" + muster.extender().logTail(60)
                    + "\nkube-scheduler log: " + muster.scheduler().log(), e);
        }
        long bound = System.nanoTime();
        assertThat(admin.bound(ns, "train-").values()).allMatch(node -> node.startsWith("prov-")).doesNotHaveDuplicates();
        Long provisioned = provisioner.provisionedAt(ns, "train-1");
        System.out.printf("e2e: request seen -> Provisioned %.2f s; -> its 3 hollow kubelets Ready %.2f s; Provisioned -> gate lifted %.2f s;"
                        + " lifted -> gang of 3 bound %.2f s (polled every 50 ms)%n", provisioner.provisionedAfter(ns, "train-1") / 1e9,
                provisioner.nodeStartNanos(ns, "train-1") / 1e9, (lifted[0] - provisioned) / 1e9, (bound - lifted[0]) / 1e9);
        assertThat(pods("train-")).as("lifted with the annotations that make cluster-autoscaler count them against the request")
                .allSatisfy(p -> assertThat(p.getMetadata().getAnnotations()).containsEntry("autoscaling.x-k8s.io/consume-provisioning-request", "train-1")
                        .containsEntry("autoscaling.x-k8s.io/provisioning-class-name", TestProvisioner.ATOMIC))
                .allSatisfy(p -> assertThat(p.getSpec().getSchedulingGates()).isNullOrEmpty());
        assertThat(requestNames()).as("no second request").containsExactly("train-1");
        assertThat(admin.readPod(ns, "rival").getSpec().getNodeName()).as("no room is left for the rival on train's nodes").isNull();
        Awaitility.await("train-0 is told its gate was lifted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> admin.eventsFrom(ns, "train-0", EXTENDER).contains("GateLifted: gang " + ns + "/train: admitted by queue default,"
                        + " on the nodes of ProvisioningRequest " + ns + "/train-1; scheduling gate muster.dev/queue-admission lifted"));
        System.out.println("e2e: train-0's events from the extender: " + admin.eventsFrom(ns, "train-0", EXTENDER));
        Awaitility.await("the request counted Done and timed").atMost(Duration.ofSeconds(30))
                .until(() -> muster.extender().counter("muster_provisioning_requests", "phase", "Done") == 1
                        && muster.extender().gauge("muster_provisioning_seconds_count") >= 1);
        assertThat(muster.extender().logTail(400)).contains("gang " + ns + "/train is held: waiting for 3 nodes from the autoscaler "
                + "(ProvisioningRequest " + ns + "/train-1: ");
    }

    @Test
    void aRequestThatFailsKeepsTheGangWaitingSaysWhyAndAsksAgainAfterTheBackoff() {
        namespace("fails");
        gang("wide", 5, "100m", Map.of("pool", "wide"));
        String failed = "gang " + ns + "/wide is held: no nodes from the autoscaler: ProvisioningRequest " + ns
                + "/wide-1 Failed (CapacityIsNotFound: cannot start 5 nodes";
        Awaitility.await("the first request Failed, and the gang says why").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> extenderLog().contains(failed));
        Awaitility.await("the second request made after the backoff").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> extenderLog().contains("of gang " + ns + "/wide: ProvisioningRequest " + ns + "/wide-2"));
        assertThat(requestNames()).as("the failed request was deleted").doesNotContain("wide-1");
        assertThat(templates()).as("and its templates with it").doesNotContain("wide-1-0");
        assertThat(bound("wide-")).isZero();
    }

    @Test
    void aGangDeletedWhileItsRequestIsPendingHasTheRequestAndItsTemplatesDeleted() {
        namespace("deleted");
        gang("gone", 2, "100m", TestProvisioner.HOLD);
        Awaitility.await("the request Accepted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> conditions("gone-1").stream().anyMatch(c -> c.startsWith("Accepted")));
        assertThat(templates()).containsExactly("gone-1-0");
        Kube.call("delete podgroup", () -> admin.custom().deleteNamespacedCustomObject(Kube.GROUP, Kube.VERSION, ns, "podgroups", "gone").execute());
        admin.deleteNow(ns, "gone-0");
        admin.deleteNow(ns, "gone-1");
        Awaitility.await("the request and its templates deleted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> requestNames().isEmpty() && templates().isEmpty());
    }

    @Test
    void anExtenderRestartedWhileARequestIsPendingAdoptsItAndMakesNoSecond() throws Exception {
        namespace("restart");
        gang("steady", 2, "100m", TestProvisioner.HOLD);
        Awaitility.await("the request Accepted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> conditions("steady-1").stream().anyMatch(c -> c.startsWith("Accepted")));
        muster.extender().kill9();
        muster.extender().restart();
        Awaitility.await("the new extender adopted the request").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> muster.extender().counter("muster_provisioning_requests", "phase", "Accepted") >= 1
                        && muster.extender().logTail(200).contains("gang " + ns + "/steady is held: waiting for 2 nodes from the autoscaler "
                        + "(ProvisioningRequest " + ns + "/steady-1: Accepted)"));
        assertThat(requestNames()).as("no second request").containsExactly("steady-1");
        assertThat(templates()).containsExactly("steady-1-0");
        // the new process owns it: deleting the gang deletes it
        Kube.call("delete podgroup", () -> admin.custom().deleteNamespacedCustomObject(Kube.GROUP, Kube.VERSION, ns, "podgroups", "steady").execute());
        Awaitility.await("the adopted request deleted with its gang").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> requestNames().isEmpty() && templates().isEmpty());
    }
}
