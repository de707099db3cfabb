package dev.muster.e2e;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * A second kind of real cluster, for what controllers and kubelets do to Muster's gangs, shared one test class at a
 * time ({@link #POOL}: started when a class needs one, stopped when the test JVM ends): etcd and kube-apiserver with Kubernetes' Workload API and the Job
 * controller's integration with it ({@code GenericWorkload}, {@code WorkloadWithJob}, 1.36 alpha), an unmodified
 * kube-controller-manager (Jobs, Deployments, garbage collection, namespaces, disruption budgets, node lifecycle and
 * eviction), {@value #NODES} hollow kubelets (1 cpu / 3840Mi each: pods are sized in millicores), the chart, and
 * Muster's extender, controller and kube-scheduler as {@link E2eCluster} runs them.
 *
 * <p>It is separate from {@link E2eCluster} because there the nodes are API objects no kubelet heartbeats (the
 * node-lifecycle controller would taint them unreachable) and tests own their pods (here the garbage collector
 * deletes pods whose owner is gone). Node death is made fast: the node-lifecycle controller marks a node whose
 * kubelet stopped heartbeating after {@value #NODE_GRACE_SECONDS} s, and pods tolerate an unreachable node for
 * {@value #TOLERATION_SECONDS} s before they are evicted. Tests use their own namespace and Queue, and leave the
 * cluster as they found it ({@link #cleanUp}): namespace deleted, every kubelet running and Ready, Muster's books empty.
 */
final class ControllersCluster {
    static final int NODES = 4;
    static final String NODE_PREFIX = "hollow-";
    static final int NODE_GRACE_SECONDS = 20;
    static final int TOLERATION_SECONDS = 2;

    /** The clusters of this kind; a test class holds one for its run ({@link Lease}). */
    static final ClusterPool<ControllersCluster> POOL = new ClusterPool<>(ControllersCluster.class, ClusterPool.LANES, ControllersCluster::new);

    final ControlPlane cp;
    final Kube admin;
    final Workloads workloads;
    final MusterInstall install;
    final KubeControllerManager controllerManager;
    final List<HollowNode> nodes = new ArrayList<>();
    final MusterStack muster;
    final MusterProcess extender;
    private int namespaces;

    private ControllersCluster() throws Exception {
        Path dir = Files.createTempDirectory("muster-e2e-controllers-");
        long t0 = System.nanoTime();
        ControlPlane.Options env = ControlPlane.Options.fromEnvironment(dir);
        for (String b : List.of("kube-controller-manager", "kubemark")) {
            if (!Files.isExecutable(env.binaries().resolve(b))) {
                throw new IllegalStateException(ControlPlane.BINARIES_ENV + "=" + env.binaries() + " has no executable " + b
                        + " (these tests need kube-controller-manager and kubemark too); " + ControlPlane.HOW_TO_GET);
            }
        }
        String gates = "--feature-gates=GenericWorkload=true,WorkloadWithJob=true";
        cp = ControlPlane.start(new ControlPlane.Options(env.binaries(), env.dataDir(), env.keepData(), List.of(gates,
                "--runtime-config=scheduling.k8s.io/v1alpha2=true",
                "--default-not-ready-toleration-seconds=" + TOLERATION_SECONDS,
                "--default-unreachable-toleration-seconds=" + TOLERATION_SECONDS)));
        admin = new Kube(cp.adminClient());
        workloads = new Workloads(cp.adminClient());
        install = MusterInstall.install(cp, E2eCluster.REPO.resolve("charts/muster"));
        controllerManager = KubeControllerManager.start(cp, List.of(gates, "--node-monitor-period=2s",
                "--node-monitor-grace-period=" + NODE_GRACE_SECONDS + "s"));
        for (int i = 0; i < NODES; i++) {
            nodes.add(HollowNode.start(cp, NODE_PREFIX + i, Map.of()));
        }
        for (HollowNode n : nodes) {
            n.awaitReady(admin, Duration.ofSeconds(90));
        }
        long nodesReady = System.nanoTime();
        // tests poll the preemption dry run every 20 ms while a decision is due: its limits (1 a second a caller by default) raised
        muster = MusterStack.start(E2eCluster.REPO, System.getProperty("muster.version", "0.1.0-SNAPSHOT"), cp, install,
                List.of("--dry-run-rate=100", "--dry-run-process-rate=100", "--dry-run-burst=100"), dir);
        extender = muster.extender();
        System.out.printf("e2e: controllers cluster: %d hollow nodes Ready in %.1f s, everything (kube-controller-manager, chart, "
                + "extender, controller, kube-scheduler) in %.1f s; data in %s%n", NODES, (nodesReady - t0) / 1e9, (System.nanoTime() - t0) / 1e9, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "e2e-controllers-cluster-stop"));
    }

    /** Holds one of {@link #POOL}'s clusters for a test class's run. */
    static final class Lease extends ClusterPool.Lease<ControllersCluster> {
        Lease() {
            super(POOL);
        }
    }

    /** A fresh namespace for one test. */
    String namespace(String hint) {
        return admin.namespace(hint + "-" + (++namespaces));
    }

    HollowNode node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * Deletes {@code ns} (the namespace controller deletes its objects, the garbage collector and kubelets their pods)
     * and waits until it is gone, every kubelet runs again and is Ready, and Muster's ledger holds no pod and no
     * reservation and no bind waits.
     */
    void cleanUp(String ns) {
        if (admin.namespaceExists(ns)) {
            admin.deleteNamespace(ns);
        }
        admin.deleteQueuesOf(ns); // cluster-scoped: a test's queues (ns, ns-b, …) would count in the next test's fair shares
        for (HollowNode n : nodes) {
            if (!n.running()) {
                n.restart();
            }
        }
        try {
            Awaitility.await("namespace " + ns + " gone, nodes Ready, muster's books empty").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250)).until(() -> !releaseOrphanedJobPods(ns) && nodes.stream().allMatch(n -> n.ready(admin))
                            && extender.gauge("muster_ledger_pods") == 0 && extender.gauge("muster_reservations") == 0
                            && extender.gauge("muster_waiting_binds") == 0 && extender.gauge("muster_held_binds") == 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            String state = "namespace exists: " + admin.namespaceExists(ns) + ", nodes Ready: "
                    + nodes.stream().map(n -> n.name() + "=" + n.ready(admin)).toList() + ", muster: "
                    + extender.metrics().lines().filter(l -> l.matches("muster_(ledger_pods|reservations|waiting_binds|held_binds|gangs\\{).*"))
                    .toList() + "\n" + diagnosis(40);
            throw new AssertionError("cleaning up after the test: " + e.getMessage() + "; " + state, e);
        }
    }

    /**
     * Whether {@code ns} (being deleted) still exists; first lets go of its deleted pods that only the Job controller's
     * tracking finalizer keeps. kube-controller-manager 1.36 with {@code WorkloadWithJob} has left such pods behind
     * (pods of a gang Job that were never bound, deleted with their namespace: the Job controller did not sync that Job
     * again, so the namespace stayed terminating); Muster holds nothing for them (deleted, and unbound or finished).
     */
    boolean releaseOrphanedJobPods(String ns) {
        if (!admin.namespaceExists(ns)) {
            return false;
        }
        for (V1Pod p : admin.pods(ns)) {
            if (p.getMetadata().getDeletionTimestamp() != null && p.getMetadata().getFinalizers() != null
                    && p.getMetadata().getFinalizers().equals(List.of(JOB_TRACKING)) && !holdsRoom(p)) {
                admin.finalizer(ns, p.getMetadata().getName(), null);
            }
        }
        return true;
    }

    /** The Job controller's finalizer on the pods it tracks. */
    static final String JOB_TRACKING = "batch.kubernetes.io/job-tracking";

    /** The pods of {@code ns} that hold room on a node: bound, not finished (terminating ones included, as kube-scheduler counts them). */
    List<V1Pod> holding(String ns) {
        return admin.pods(ns).stream().filter(ControllersCluster::holdsRoom).toList();
    }

    /** The uids of the pods of {@code ns} that {@code selector} (a label selector) matches now. */
    Set<String> uids(String ns, String selector) {
        return admin.pods(ns, selector).stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    }

    /** Which of {@code original} (pod uids in {@code ns}) still hold room and are not being deleted. */
    Set<String> survivors(String ns, Set<String> original) {
        Set<String> out = new HashSet<>();
        for (V1Pod p : admin.pods(ns)) {
            if (original.contains(p.getMetadata().getUid()) && p.getMetadata().getDeletionTimestamp() == null && holdsRoom(p)) {
                out.add(p.getMetadata().getUid());
            }
        }
        return out;
    }

    static boolean holdsRoom(V1Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return p.getSpec().getNodeName() != null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    /** The Queue's {@code status.allocated} cpu in millicores (0 when absent). */
    long allocatedCpuMillis(String queue) {
        Object allocated = Kube.status(admin.queueObject(queue)).get("allocated");
        if (allocated instanceof Map<?, ?> m && m.get("cpu") != null) {
            return new Quantity(String.valueOf(m.get("cpu"))).getNumber().movePointRight(3).longValue();
        }
        return 0;
    }

    /** A number of the Queue's status ({@code running}, {@code inqueue}, ...), 0 when absent. */
    long queueCount(String queue, String field) {
        Object v = Kube.status(admin.queueObject(queue)).get(field);
        return v instanceof Number n ? n.longValue() : 0;
    }

    /** A PodGroup's status.phase (null before the controller wrote one). */
    String phase(String ns, String podGroup) {
        Object p = Kube.status(admin.podGroupObject(ns, podGroup)).get("phase");
        return p == null ? null : p.toString();
    }

    /** A number of a PodGroup's status ({@code running}, {@code succeeded}, {@code failed}), 0 when absent. */
    long podGroupCount(String ns, String podGroup, String field) {
        Object v = Kube.status(admin.podGroupObject(ns, podGroup)).get(field);
        return v instanceof Number n ? n.longValue() : 0;
    }

    /**
     * Whether Muster's ledger holds exactly the pods that hold room in the cluster (every namespace): its pod count, and
     * no reservation left behind. Read through the extender's metrics (what Muster exposes of its books).
     */
    boolean ledgerMatchesCluster() {
        long holding = Kube.call("list pods", () -> admin.core().listPodForAllNamespaces().execute()).getItems().stream()
                .filter(ControllersCluster::holdsRoom).count();
        return extender.gauge("muster_ledger_pods") == holding;
    }

    /** Muster's held cpu (bound pods and reservations) of {@code queue}, in millicores, from the extender's metrics (0 when absent). */
    long musterHeldCpuMillis(String queue) {
        String prefix = "muster_queue_held{queue=\"" + queue + "\",resource=\"cpu\",} ";
        for (String line : extender.metrics().split("\n")) {
            if (line.startsWith(prefix)) {
                return (long) Double.parseDouble(line.substring(prefix.length()).trim());
            }
        }
        return 0;
    }

    /** Pods of {@code ns} matching {@code selector} that are bound and Running, and not being deleted. */
    long running(String ns, String selector) {
        return admin.pods(ns, selector).stream().filter(p -> p.getSpec().getNodeName() != null && p.getMetadata().getDeletionTimestamp() == null
                && p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
    }

    void awaitRunning(String ns, String selector, int count) {
        Awaitility.await(count + " pods " + ns + "/" + selector + " Running").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .until(() -> running(ns, selector) == count);
    }

    /** Waits until the Volcano PodGroup is Running with {@code members} running and its Queue counts it with {@code cpuMillis} allocated. */
    void awaitGangRunning(String ns, String podGroup, String queue, int members, long cpuMillis) {
        Awaitility.await("PodGroup " + podGroup + " Running with " + members + ", Queue running 1 with " + cpuMillis + "m allocated")
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> "Running".equals(phase(ns, podGroup))
                        && podGroupCount(ns, podGroup, "running") == members && queueCount(queue, "running") == 1
                        && allocatedCpuMillis(queue) == cpuMillis);
    }

    /** Whether the Job has condition {@code type} (Complete, Failed, Suspended, ...) True. */
    boolean jobCondition(String ns, String job, String type) {
        Object conditions = Workloads.field(workloads.job(ns, job), "status", "conditions");
        return conditions instanceof List<?> l && l.stream().anyMatch(o -> o instanceof Map<?, ?> m
                && type.equals(m.get("type")) && "True".equals(m.get("status")));
    }

    /** The controller manager's log tail, every pod (phase, node, deletion) and the last events of every namespace. */
    String diagnosis(int lines) {
        StringBuilder out = new StringBuilder("kube-controller-manager:\n").append(controllerManager.logTail(lines)).append("\npods:\n");
        try {
            for (V1Pod p : Kube.call("list pods", () -> admin.core().listPodForAllNamespaces().execute()).getItems()) {
                out.append("  ").append(p.getMetadata().getNamespace()).append('/').append(p.getMetadata().getName())
                        .append(" node=").append(p.getSpec().getNodeName()).append(" phase=").append(p.getStatus() == null ? null : p.getStatus().getPhase())
                        .append(p.getMetadata().getDeletionTimestamp() == null ? "" : " deleting").append('\n');
            }
            var events = new ArrayList<>(Kube.call("list events", () -> admin.core().listEventForAllNamespaces().execute()).getItems());
            events.sort(java.util.Comparator.comparing(e -> String.valueOf(e.getLastTimestamp() != null ? e.getLastTimestamp() : e.getEventTime())));
            out.append("events:\n");
            events.subList(Math.max(0, events.size() - lines), events.size()).forEach(e -> out.append("  ")
                    .append(e.getInvolvedObject().getNamespace()).append('/').append(e.getInvolvedObject().getName()).append(' ')
                    .append(e.getReason()).append(": ").append(e.getMessage()).append('\n'));
        } catch (RuntimeException e) {
            out.append("(not readable: ").append(e).append(")\n");
        }
        return out.toString();
    }

    private void close() {
        muster.close();
        nodes.forEach(HollowNode::close);
        controllerManager.close();
        cp.close();
    }
}
