package dev.muster.e2e;

import io.kubernetes.client.openapi.models.V1Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One node run by a real kubelet: kubemark's hollow kubelet ({@code kubemark --morph=kubelet}), the kubelet's code
 * with a fake container runtime. It registers its Node, heartbeats its Lease, runs the pods bound to it (they become
 * {@code Running}), and terminates deleted pods gracefully as a kubelet does. Its machine is fixed: <b>1 cpu,
 * 3840Mi memory, no ephemeral storage</b>, 110 pods. {@link #stop()} kills the process (the node dies: no more
 * heartbeats); {@link #restart()} brings the same node back.
 */
public final class HollowNode implements AutoCloseable {
    /** The fake machine's allocatable cpu, in millicores. */
    public static final long CPU_MILLIS = 1000;
    /** The fake machine's memory. */
    public static final String MEMORY = "3840Mi";

    private final String name;
    private final Proc proc;

    private HollowNode(String name, Proc proc) {
        this.name = name;
        this.proc = proc;
    }

    /**
     * Starts the kubelet of node {@code name} (admin credentials, as a test's kubelet may have) and returns at once;
     * {@link #awaitReady} waits for its Node to be {@code Ready}.
     *
     * @param labels node labels it registers with
     */
    public static HollowNode start(ControlPlane cp, String name, Map<String, String> labels) {
        List<String> cmd = new ArrayList<>(List.of(cp.bin("kubemark"), "--morph=kubelet", "--name=" + name,
                "--kubeconfig=" + cp.adminKubeconfig(), "--use-host-image-service=false",
                "--kubelet-port=" + ControlPlane.freePort(), "--kubelet-read-only-port=0", "-v=1"));
        if (!labels.isEmpty()) {
            cmd.add("--node-labels=" + labels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")));
        }
        try {
            return new HollowNode(name, Proc.start("kubelet-" + name, cmd, Map.of(), cp.dataDir().resolve("kubelet-" + name + ".log")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return name;
    }

    /** Waits until the Node exists and its {@code Ready} condition is {@code True}. */
    public void awaitReady(Kube admin, Duration atMost) {
        proc.awaitReady("Ready", atMost, () -> ready(admin));
    }

    /** Whether the Node's {@code Ready} condition is {@code True} (false when it does not exist). */
    public boolean ready(Kube admin) {
        V1Node node;
        try {
            node = admin.core().readNode(name).execute();
        } catch (io.kubernetes.client.openapi.ApiException e) {
            return false;
        }
        return node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** Kills the kubelet (SIGKILL): the node stops heartbeating and nothing on it is terminated or reported any more. */
    public void stop() throws InterruptedException {
        proc.kill9();
    }

    public boolean running() {
        return proc.alive();
    }

    /** Starts the same kubelet again (after {@link #stop()}); it re-registers its Node. */
    public void restart() {
        try {
            proc.restart();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public long pid() {
        return proc.pid();
    }

    @Override
    public void close() {
        proc.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
