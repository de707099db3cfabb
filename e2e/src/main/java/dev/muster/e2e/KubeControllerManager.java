package dev.muster.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An unmodified kube-controller-manager against a {@link ControlPlane}: the Job, ReplicaSet/Deployment, garbage
 * collector, namespace, ServiceAccount, disruption (PodDisruptionBudget status), taint-eviction, pod GC and
 * node-lifecycle controllers, with the admin credentials (set-up tooling, as an operator's kubeconfig would be).
 * Node IPAM is left out (no pod CIDRs on loopback). Node-lifecycle needs nodes whose kubelet heartbeats
 * ({@link HollowNode}): it marks a node without heartbeats unreachable after {@code --node-monitor-grace-period}.
 */
public final class KubeControllerManager implements AutoCloseable {
    private final Proc proc;

    private KubeControllerManager(Proc proc) {
        this.proc = proc;
    }

    /**
     * Starts it and waits until its secure port answers {@code /healthz}.
     *
     * @param extraArgs further flags (e.g. {@code --node-monitor-grace-period=20s}, {@code --feature-gates=...}), applied last
     */
    public static KubeControllerManager start(ControlPlane cp, List<String> extraArgs) {
        int port = ControlPlane.freePort();
        String kubeconfig = cp.adminKubeconfig().toString();
        List<String> cmd = new ArrayList<>(List.of(cp.bin("kube-controller-manager"), "--kubeconfig=" + kubeconfig,
                "--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig,
                "--bind-address=127.0.0.1", "--secure-port=" + port, "--leader-elect=false",
                "--use-service-account-credentials=false", "--service-account-private-key-file=" + cp.dataDir().resolve("sa.key"),
                "--root-ca-file=" + cp.caFile(), "--controllers=*,-node-ipam-controller", "-v=1"));
        cmd.addAll(extraArgs);
        try {
            Proc p = Proc.start("kube-controller-manager", cmd, Map.of(), cp.dataDir().resolve("kube-controller-manager.log"));
            p.awaitReady("healthy", Duration.ofSeconds(60), () -> Http.ok("https://127.0.0.1:" + port + "/healthz", cp.adminToken()));
            return new KubeControllerManager(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public java.nio.file.Path log() {
        return proc.log();
    }

    /** The last {@code lines} lines of its log. */
    public String logTail(int lines) {
        return proc.tail(lines);
    }

    public long pid() {
        return proc.pid();
    }

    @Override
    public void close() {
        proc.close();
    }
}
