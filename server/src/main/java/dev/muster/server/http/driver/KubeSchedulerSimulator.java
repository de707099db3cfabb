package dev.muster.server.http.driver;

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

    /** The outcome of one scheduling cycle: the bind in flight, or why no node was chosen. */
    public record Attempt(String node, CompletableFuture<String> bind, String unschedulableReason) {
        public boolean scheduled() {
            return node != null;
        }
    }

    /** One serial scheduling cycle for {@code pod} over {@code candidates}. */
    public Attempt scheduleOne(ExtenderClient.PodSpec pod, List<String> candidates) {
        String json = ExtenderClient.podJson(pod);
        ExtenderClient.FilterAnswer f = client.filter(json, candidates);
        if (!f.error().isEmpty()) {
            return new Attempt(null, null, "filter error: " + f.error());
        }
        if (f.nodeNames().isEmpty()) {
            String reason = !f.failed().isEmpty() ? f.failed().values().iterator().next()
                    : !f.unresolvable().isEmpty() ? f.unresolvable().values().iterator().next() : "no nodes";
            return new Attempt(null, null, reason);
        }
        List<ExtenderClient.HostScore> scores = client.prioritize(json, f.nodeNames());
        String best = scores.stream().max(Comparator.comparingLong(ExtenderClient.HostScore::score)).orElseThrow().host();
        CompletableFuture<String> bind = CompletableFuture.supplyAsync(
                () -> client.bind(pod.name(), pod.namespace(), pod.uid(), best), binders);
        return new Attempt(best, bind, null);
    }

    @Override
    public void close() {
        binders.shutdownNow();
    }
}
