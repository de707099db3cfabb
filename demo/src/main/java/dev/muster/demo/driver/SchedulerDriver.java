package dev.muster.demo.driver;

import dev.muster.core.model.GangMembership;
import dev.muster.core.resources.Quantities;
import dev.muster.demo.cluster.ClusterEvent;
import dev.muster.demo.cluster.ClusterListener;
import dev.muster.demo.cluster.ClusterPod;
import dev.muster.testsupport.extender.ExtenderClient;
import dev.muster.testsupport.extender.KubeSchedulerSimulator;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kube-scheduler for the demo: watches the cluster (pending pods of {@code schedulerName} enter the
 * {@link SchedulingQueue}; bound and finished pods update the {@link SchedulerCache}; a finished or deleted pod
 * or a new node moves unschedulable pods back), and runs kube-scheduler's scheduling cycle one pod at a time on
 * its own thread: its own node-fit filter and node sampling, then the extender's filter and prioritize over
 * HTTP, the best node assumed, and the bind handed to its own thread. A pod no node takes goes to the
 * unschedulable pool; a failed call or a failed bind (for example a gang whose reservation expired at the
 * barrier) goes to backoff and is retried.
 *
 * <p>Thread-safe: events arrive on the watch's thread, cycles run on the driver's thread, binds complete on the
 * simulator's threads; the queue, the cache and the stats are thread-safe, {@code bindsInFlight} is atomic.
 */
public final class SchedulerDriver implements ClusterListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SchedulerDriver.class.getName());

    /** How the driver schedules. */
    public record Options(String schedulerName, int nodesToScore, Duration initialBackoff, Duration maxBackoff, Duration unschedulableFlush) {}

    private final Options options;
    private final KubeSchedulerSimulator simulator;
    private final SchedulerCache cache = new SchedulerCache();
    private final SchedulingQueue queue;
    private final DriverStats stats = new DriverStats();
    private final AtomicInteger bindsInFlight = new AtomicInteger();
    private final Thread thread;
    private volatile boolean synced;
    private volatile boolean stopped;

    public SchedulerDriver(Options options, ExtenderClient client) {
        this.options = Objects.requireNonNull(options, "options");
        this.simulator = new KubeSchedulerSimulator(client);
        this.queue = new SchedulingQueue(System::nanoTime, options.initialBackoff(), options.maxBackoff(), options.unschedulableFlush());
        this.thread = Thread.ofPlatform().daemon().name("kube-scheduler").unstarted(this::loop);
    }

    public void start() {
        thread.start();
    }

    // ------------------------------------------------------------------------------------------- informer side

    @Override
    public void onEvent(ClusterEvent event) {
        switch (event) {
            case ClusterEvent.NodeAdded n -> {
                cache.addNode(n.node());
                queue.moveAllToActiveOrBackoff();
            }
            case ClusterEvent.PodChanged c -> {
                ClusterPod p = c.pod();
                if (cache.observe(p)) {
                    queue.moveAllToActiveOrBackoff();
                }
                if (p.isPending() && options.schedulerName().equals(p.schedulerName())) {
                    queue.addOrUpdate(p);
                } else {
                    queue.remove(p.uid());
                }
            }
            case ClusterEvent.PodDeleted d -> {
                queue.remove(d.pod().uid());
                if (cache.removed(d.pod().uid())) {
                    queue.moveAllToActiveOrBackoff();
                }
            }
            case ClusterEvent.Synced s -> synced = true;
            default -> { }
        }
    }

    // ------------------------------------------------------------------------------------------- scheduling cycle

    private void loop() {
        while (!stopped) {
            SchedulingQueue.Entry e;
            try {
                e = queue.pop(Duration.ofMillis(200));
            } catch (InterruptedException ex) {
                return;
            }
            if (e == null) {
                continue;
            }
            long firstWait = e.takeFirstTryWait();
            if (firstWait >= 0) {
                stats.firstTry(firstWait);
            }
            try {
                scheduleOne(e);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.ERROR, "scheduling cycle for " + e.pod().id() + " failed", ex);
                stats.callError();
                queue.failed(e);
            }
        }
    }

    private void scheduleOne(SchedulingQueue.Entry e) {
        ClusterPod pod = e.pod();
        long start = System.nanoTime();
        SchedulerCache.Fit fit = cache.feasible(pod.request(), options.nodesToScore());
        if (fit.nodes().isEmpty()) {
            stats.noNodeFits();
            if (pod.gang() == null) {
                stats.singlePodWaits(pod.uid(), "kube-scheduler's own filter: no node fits (bound and assumed pods)");
            }
            queue.unschedulable(e);
            return;
        }
        KubeSchedulerSimulator.Attempt attempt = simulator.scheduleOne(specOf(pod), fit.nodes());
        stats.cycle(System.nanoTime() - start);
        if (!attempt.scheduled()) {
            if (attempt.error()) {
                stats.callError();
                LOG.log(System.Logger.Level.WARNING, "scheduling " + pod.id() + ": " + attempt.unschedulableReason());
                queue.failed(e);
            } else {
                stats.unschedulable();
                if (pod.gang() == null) {
                    stats.singlePodWaits(pod.uid(), "extender: " + attempt.unschedulableReason());
                }
                queue.unschedulable(e);
            }
            return;
        }
        cache.assume(pod.uid(), attempt.node(), pod.request());
        bindsInFlight.incrementAndGet();
        attempt.bind().whenComplete((error, failure) -> {
            try {
                String message = failure != null ? String.valueOf(failure) : error;
                if (message.isEmpty()) {
                    stats.bound();
                    queue.done(e);
                } else {
                    LOG.log(System.Logger.Level.INFO, "bind of " + pod.id() + " to " + attempt.node() + " failed, retrying with backoff: " + message);
                    stats.bindFailed(message);
                    cache.forget(pod.uid());
                    queue.failed(e);
                }
            } finally {
                bindsInFlight.decrementAndGet();
            }
        });
    }

    /** The pod as kube-scheduler sends it to the extender. */
    static ExtenderClient.PodSpec specOf(ClusterPod pod) {
        Map<String, String> requests = new LinkedHashMap<>();
        pod.requests().asMap().forEach((name, amount) -> requests.put(name, Quantities.format(name, amount)));
        Map<String, String> annotations = pod.gang() == null ? Map.of() : Map.of(GangMembership.GROUP_NAME, pod.gang().name());
        return new ExtenderClient.PodSpec(pod.id().name(), pod.id().namespace(), pod.uid(), Long.toString(pod.resourceVersion()), requests,
                annotations, pod.schedulerName(), pod.priority());
    }

    // ------------------------------------------------------------------------------------------- state

    public boolean synced() {
        return synced;
    }

    public SchedulingQueue.Counts queueCounts() {
        return queue.counts();
    }

    public int bindsInFlight() {
        return bindsInFlight.get();
    }

    public DriverStats stats() {
        return stats;
    }

    /** Nothing to do right now: no pod active, backing off or in a cycle, no bind in flight (the unschedulable pool may hold pods). */
    public boolean idle() {
        SchedulingQueue.Counts c = queue.counts();
        return c.active() == 0 && c.backoff() == 0 && c.inFlight() == 0 && bindsInFlight.get() == 0;
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        simulator.close();
    }
}
