package dev.muster.demo.cluster;

import dev.muster.core.model.PodPhase;
import dev.muster.demo.time.SimTimer;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every node's kubelet at once, in simulated time: a pod bound to a node starts {@code startup} later
 * (Running, or Failed if the node cannot admit it), and its container runs for the pod's {@code runFor}, then
 * the pod Succeeds. A pod without {@code runFor} runs until deleted.
 *
 * <p>Thread-safe: events arrive on its watch's thread, starts and finishes run on the timer's thread;
 * {@code seen} is a concurrent set, so each bound pod is started once.
 */
public final class Kubelet implements ClusterListener {
    private final EmbeddedCluster cluster;
    private final SimTimer timer;
    private final Duration startup;
    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    public Kubelet(EmbeddedCluster cluster, SimTimer timer, Duration startup) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.startup = Objects.requireNonNull(startup, "startup");
    }

    @Override
    public void onEvent(ClusterEvent event) {
        switch (event) {
            case ClusterEvent.PodChanged c -> {
                ClusterPod p = c.pod();
                if (p.isBound() && p.phase() == PodPhase.PENDING && seen.add(p.uid())) {
                    timer.after(startup, () -> start(p.uid()));
                } else if (p.phase().isTerminal()) {
                    seen.remove(p.uid());
                }
            }
            case ClusterEvent.PodDeleted d -> seen.remove(d.pod().uid());
            default -> { }
        }
    }

    private void start(String uid) {
        ClusterPod running = cluster.startPod(uid);
        if (running != null && running.phase() == PodPhase.RUNNING && running.runFor() != null) {
            timer.after(running.runFor(), () -> cluster.finishPod(uid, PodPhase.SUCCEEDED));
        }
    }
}
