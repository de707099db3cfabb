package dev.muster.testsupport.extender;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Drives an extender as kube-scheduler's scheduling cycle does: for one pod at a time (the caller keeps
 * it serial), filter, then prioritize the nodes that passed, pick the best score, and hand the bind to
 * its own thread (kube-scheduler's binding cycle is asynchronous). Thread-safe.
 */
public final class KubeSchedulerSimulator implements AutoCloseable {
    private final ExtenderClient client;
    private final ExecutorService binders = Executors.newVirtualThreadPerTaskExecutor();

    public KubeSchedulerSimulator(ExtenderClient client) {
        this.client = client;
    }

    /**
     * The outcome of one scheduling cycle: the bind in flight, or why no node was chosen. {@code error} tells a
     * failed call (HTTP error, transport failure: kube-scheduler retries with backoff) from an answer that no
     * node fits (the pod is unschedulable until the cluster changes).
     */
    public record Attempt(String node, CompletableFuture<String> bind, String unschedulableReason, boolean error) {
        public boolean scheduled() {
            return node != null;
        }

        static Attempt unschedulable(String reason) {
            return new Attempt(null, null, reason, false);
        }

        static Attempt failed(String reason) {
            return new Attempt(null, null, reason, true);
        }
    }

    /**
     * One serial scheduling cycle for {@code pod} over {@code candidates}. A failed call is answered as an error
     * attempt (or, for the bind, as its error text), never thrown.
     */
    public Attempt scheduleOne(ExtenderClient.PodSpec pod, List<String> candidates) {
        String json = ExtenderClient.podJson(pod);
        ExtenderClient.FilterAnswer f;
        try {
            f = client.filter(json, candidates);
        } catch (IllegalStateException e) {
            return Attempt.failed("filter failed: " + e.getMessage());
        }
        if (!f.error().isEmpty()) {
            return Attempt.failed("filter error: " + f.error());
        }
        if (f.nodeNames().isEmpty()) {
            String reason = !f.failed().isEmpty() ? f.failed().values().iterator().next()
                    : !f.unresolvable().isEmpty() ? f.unresolvable().values().iterator().next() : "no nodes";
            return Attempt.unschedulable(reason);
        }
        List<ExtenderClient.HostScore> scores;
        try {
            scores = client.prioritize(json, f.nodeNames());
        } catch (IllegalStateException e) {
            return Attempt.failed("prioritize failed: " + e.getMessage());
        }
        String best = scores.stream().max(Comparator.comparingLong(ExtenderClient.HostScore::score))
                .map(ExtenderClient.HostScore::host).orElse(f.nodeNames().getFirst());
        CompletableFuture<String> bind = CompletableFuture.supplyAsync(() -> {
            try {
                return client.bind(pod.name(), pod.namespace(), pod.uid(), best);
            } catch (IllegalStateException e) {
                return "bind failed: " + e.getMessage();
            }
        }, binders);
        return new Attempt(best, bind, null, false);
    }

    @Override
    public void close() {
        binders.shutdownNow();
    }
}
