package dev.muster.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * A real cluster the end-to-end tests share, one test class at a time ({@link #POOL}: started when a class needs one,
 * stopped when the test JVM ends): etcd and
 * kube-apiserver, the chart installed with Helm, Muster's extender and controller from their jars with their
 * ServiceAccounts' tokens, an unmodified kube-scheduler configured from extender-config/, and 8 fake Ready nodes
 * of 4 cpu / 16Gi. Tests use their own namespaces and leave no pods behind ({@link #cleanUp}).
 */
final class E2eCluster {
    static final int NODES = 8;
    static final String NODE_CPU = "4";
    static final String NODE_MEMORY = "16Gi";
    /** The extender's topology levels; nodes carry no such labels unless a test sets them (TopologyE2eTest). */
    static final String RACK_LABEL = "e2e.muster.dev/rack";
    /** System property: the kube-scheduler's --feature-gates instead of the chart's (e.g. GenericWorkload=true). */
    static final String SCHEDULER_GATES = "muster.e2e.schedulerFeatureGates";

    /** The clusters of this kind; a test class holds one for its run ({@link Lease}). */
    static final ClusterPool<E2eCluster> POOL = new ClusterPool<>(E2eCluster.class, ClusterPool.LANES, E2eCluster::new);

    /** The repository's root (system property {@code muster.repo}, else the parent of e2e/). */
    static final Path REPO = Path.of(System.getProperty("muster.repo", "..")).toAbsolutePath().normalize();

    final Path repo = REPO;
    final String version = System.getProperty("muster.version", "0.1.0-SNAPSHOT");
    final ControlPlane cp;
    final Kube admin;
    final MusterInstall install;
    final MusterStack muster;
    final MusterProcess extender;
    final MusterProcess controller;
    final KubeScheduler scheduler;
    private int namespaces;

    private E2eCluster() throws Exception {
        Path dir = Files.createTempDirectory("muster-e2e-");
        long t0 = System.nanoTime();
        ControlPlane.Options env = ControlPlane.Options.fromEnvironment(dir);
        // Kubernetes' own PodGroup API (scheduling.k8s.io/v1alpha2 in 1.36) is served only with its gate and API enabled;
        // the admin turns the workload gates on for the control plane
        cp = ControlPlane.start(new ControlPlane.Options(env.binaries(), env.dataDir(), env.keepData(),
                List.of("--feature-gates=GenericWorkload=true,GangScheduling=true", "--runtime-config=scheduling.k8s.io/v1alpha2=true")));
        long apiReady = System.nanoTime();
        admin = new Kube(cp.adminClient());
        install = MusterInstall.install(cp, repo.resolve("charts/muster"));
        admin.nodes("node-", NODES, NODE_CPU, NODE_MEMORY);
        // kube-scheduler runs with the feature gates of the chart's Deployment (its own gang scheduling off) while the API
        // server has them on: the gang decisions and the PodGroup status are Muster's alone. -D{SCHEDULER_GATES} replaces
        // them, to see what kube-scheduler does with other gates (extender-config/README.md)
        String gates = System.getProperty(SCHEDULER_GATES);
        muster = MusterStack.start(repo, version, cp, install, List.of("--topology-levels=" + RACK_LABEL + ",kubernetes.io/hostname"),
                gates == null ? install.schedulerFlags("--feature-gates=") : List.of("--feature-gates=" + gates), dir);
        extender = muster.extender();
        controller = muster.controller();
        scheduler = muster.scheduler();
        System.out.printf("e2e: API server ready in %.1f s, everything (chart, %d nodes, extender, controller, kube-scheduler) in %.1f s; data in %s%n",
                (apiReady - t0) / 1e9, NODES, (System.nanoTime() - t0) / 1e9, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "e2e-cluster-stop"));
    }

    /** Holds one of {@link #POOL}'s clusters for a test class's run. */
    static final class Lease extends ClusterPool.Lease<E2eCluster> {
        Lease() {
            super(POOL);
        }
    }

    /** The chart's TLS as installed here. */
    ChartTls chartTls() {
        return new ChartTls(cp, admin, install, repo);
    }

    /** A fresh namespace for one test. */
    String namespace(String hint) {
        return admin.namespace(hint + "-" + (++namespaces));
    }

    String extenderUrl() {
        return "http://127.0.0.1:" + muster.extenderHttpPort();
    }

    /** Deletes every pod of {@code ns} and waits until Muster's books show no pod and no reservation of any gang. */
    void cleanUp(String ns) {
        for (var p : admin.pods(ns)) {
            admin.deleteNow(ns, p.getMetadata().getName());
        }
        Awaitility.await("pods of " + ns + " gone from muster's ledger").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> admin.pods(ns).isEmpty() && extender.gauge("muster_ledger_pods") == 0 && extender.gauge("muster_reservations") == 0);
    }

    /** Waits until {@code count} pods of {@code ns} named {@code prefix}* are bound; returns the seconds since {@code sinceNanos}. */
    double awaitBound(String ns, String prefix, int count, long sinceNanos) {
        Awaitility.await(count + " pods " + ns + "/" + prefix + "* bound").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> admin.bound(ns, prefix).size() >= count);
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    /**
     * Gangs {@code ns}/a and b of {@code size} members each, competing: one ends with every member bound, the other with
     * none, and stays so for 12 s; no node holds more than its 4 cpu. Returns the loser's name.
     */
    String awaitWholeAndZero(String ns, int size) {
        Awaitility.await("one gang whole").atMost(Duration.ofSeconds(60))
                .until(() -> admin.bound(ns, "a-").size() == size || admin.bound(ns, "b-").size() == size);
        String winner = admin.bound(ns, "a-").size() == size ? "a" : "b";
        String loser = winner.equals("a") ? "b" : "a";
        staysBound(ns, loser + "-", 0, Duration.ofSeconds(12));
        if (admin.bound(ns, winner + "-").size() != size || !cpuPerNode().values().stream().allMatch(m -> m <= 4000)) {
            throw new AssertionError("gang " + ns + "/" + winner + " lost members or a node is over its cpu: " + cpuPerNode());
        }
        return loser;
    }

    /** Exactly {@code count} pods named {@code prefix}* are bound throughout {@code d} (once bound, a pod stays bound here, so a count that changes fails). */
    void staysBound(String ns, String prefix, int count, Duration d) {
        Awaitility.await(count + " pods " + ns + "/" + prefix + "* bound throughout " + d.toSeconds() + " s")
                .during(d).atMost(d.plusSeconds(10)).pollInterval(Duration.ofMillis(250))
                .until(() -> admin.bound(ns, prefix).size() == count);
    }

    /** The PodGroup's status.conditions as "Type=Status Reason: message" lines. */
    List<String> conditions(String ns, String podGroup) {
        return Kube.conditionLines(admin.podGroupObject(ns, podGroup));
    }

    /** Requested cpu (millicores) per node over the bound pods of every namespace: no node may exceed its 4 cpu. */
    Map<String, Long> cpuPerNode() {
        return cpuPerNode(admin);
    }

    /** Requested cpu (millicores) per node over the bound pods of every namespace of {@code admin}'s cluster. */
    static Map<String, Long> cpuPerNode(Kube admin) {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (var p : Kube.call("list pods", () -> admin.core().listPodForAllNamespaces().execute()).getItems()) {
            if (p.getSpec().getNodeName() != null) {
                long m = 0;
                for (var ctr : p.getSpec().getContainers()) {
                    var q = ctr.getResources() == null || ctr.getResources().getRequests() == null ? null : ctr.getResources().getRequests().get("cpu");
                    m += q == null ? 0 : q.getNumber().movePointRight(3).longValue();
                }
                out.merge(p.getSpec().getNodeName(), m, Long::sum);
            }
        }
        return out;
    }

    private void close() {
        muster.close();
        cp.close();
    }
}
