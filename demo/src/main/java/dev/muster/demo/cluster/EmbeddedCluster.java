package dev.muster.demo.cluster;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import dev.muster.demo.cluster.ClusterException.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * An in-memory Kubernetes API server for what Muster reads and writes: nodes, pods, Volcano PodGroups and
 * Queues. Every write is an API call that either happens whole (a new immutable object with a higher
 * resourceVersion, announced to every {@link Watch}) or is refused with a {@link ClusterException} whose
 * message reads like the API server's. Like the real one it does not check capacity when a pod is bound; the
 * simulated {@link Kubelet} does, when it admits the pod ({@link #startPod}).
 *
 * <p>Pod lifecycle: {@link #createPod} (Pending, unbound) → {@link #bind} (nodeName set) → {@link #startPod}
 * (Running, or Failed when the node has no room: kubelet admission) → {@link #finishPod} (Succeeded or Failed).
 *
 * <p><b>Thread-safety.</b> This class is thread-safe with one lock, {@code lock}, that guards every field below
 * it (the object maps, the per-node usage, the counters, the resourceVersion and event counters, and the watch
 * list). Events are numbered and offered to every watch while the lock is held, so each watch sees the changes
 * in the order they happened; delivery happens later, on the watch's own thread, never under this lock.
 * Everything returned is immutable or a copy. Times are read from {@code clock} (simulated nanoseconds).
 */
public final class EmbeddedCluster {
    private final LongSupplier clock;
    private final ReentrantLock lock = new ReentrantLock();
    // ---- guarded by lock ----
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, Resources> nodeUsed = new HashMap<>(); // requests of pods holding resources, per node
    private final Map<String, ClusterPod> pods = new LinkedHashMap<>(); // by uid
    private final Map<GangKey, PodGroupObject> podGroups = new LinkedHashMap<>();
    private final Map<String, QueueObject> queues = new LinkedHashMap<>();
    private final List<Watch> watches = new ArrayList<>();
    private final List<String> admissionRejections = new ArrayList<>();
    private long resourceVersion;
    private long events;
    private long binds;
    private long bindRejections;
    private long overcommittingBinds;
    private long queueStatusWrites;
    private long podGroupStatusWrites;

    /** @param clock simulated nanoseconds, for creation, binding, start and finish times */
    public EmbeddedCluster(LongSupplier clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    // ------------------------------------------------------------------------------------------- writes

    /** Creates or updates a node. */
    public void applyNode(Node node) {
        lock.lock();
        try {
            nodes.put(node.name(), node);
            nodeUsed.putIfAbsent(node.name(), Resources.ZERO);
            publish(new ClusterEvent.NodeAdded(node));
        } finally {
            lock.unlock();
        }
    }

    /** Creates a Queue or replaces its spec (its status stays). */
    public QueueObject applyQueue(QueueSpec spec) {
        lock.lock();
        try {
            QueueObject old = queues.get(spec.name());
            QueueObject q = new QueueObject(spec, old == null ? null : old.status(), ++resourceVersion, old == null ? 0 : old.statusWrites());
            queues.put(spec.name(), q);
            publish(new ClusterEvent.QueueChanged(q));
            return q;
        } finally {
            lock.unlock();
        }
    }

    public PodGroupObject createPodGroup(PodGroupSpec spec) {
        lock.lock();
        try {
            if (podGroups.containsKey(spec.key())) {
                throw new ClusterException(Reason.ALREADY_EXISTS, "podgroups.scheduling.volcano.sh \"" + spec.key() + "\" already exists");
            }
            PodGroupObject pg = new PodGroupObject(spec, null, clock.getAsLong(), ++resourceVersion, 0);
            podGroups.put(spec.key(), pg);
            publish(new ClusterEvent.PodGroupChanged(pg));
            return pg;
        } finally {
            lock.unlock();
        }
    }

    public void deletePodGroup(GangKey key) {
        lock.lock();
        try {
            if (podGroups.remove(key) == null) {
                throw new ClusterException(Reason.NOT_FOUND, "podgroups.scheduling.volcano.sh \"" + key + "\" not found");
            }
            publish(new ClusterEvent.PodGroupDeleted(key));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Creates a pending pod.
     *
     * @param runFor how long its container runs once started; null runs until deleted
     */
    public ClusterPod createPod(PodId id, Resources requests, GangKey gang, String schedulerName, int priority, Duration runFor) {
        lock.lock();
        try {
            if (pods.containsKey(id.uid())) {
                throw new ClusterException(Reason.ALREADY_EXISTS, "pods \"" + id + "\" (uid " + id.uid() + ") already exists");
            }
            ClusterPod p = ClusterPod.created(id, requests, gang, schedulerName, priority, runFor, clock.getAsLong()).withVersion(++resourceVersion);
            pods.put(id.uid(), p);
            publish(new ClusterEvent.PodChanged(p));
            return p;
        } finally {
            lock.unlock();
        }
    }

    public void deletePod(String uid) {
        lock.lock();
        try {
            ClusterPod p = pods.remove(uid);
            if (p == null) {
                throw new ClusterException(Reason.NOT_FOUND, "pod with uid " + uid + " not found");
            }
            if (p.holdsResources()) {
                release(p);
            }
            publish(new ClusterEvent.PodDeleted(p));
        } finally {
            lock.unlock();
        }
    }

    /**
     * A {@code v1 Binding}: sets the pod's {@code spec.nodeName}. Refused when the pod does not exist, has
     * finished or is already bound (409, as the API server answers even for the same node), or the node does
     * not exist. Capacity is not checked (the API server does not); a bind that overcommits its node is
     * counted, and the kubelet will refuse to start the pod.
     */
    public ClusterPod bind(PodId id, String node) {
        lock.lock();
        try {
            ClusterPod p = pods.get(id.uid());
            if (p == null || !p.id().namespace().equals(id.namespace()) || !p.id().name().equals(id.name())) {
                bindRejections++;
                throw new ClusterException(Reason.NOT_FOUND, "pods \"" + id + "\" (uid " + id.uid() + ") not found");
            }
            if (p.isBound()) {
                bindRejections++;
                throw new ClusterException(Reason.CONFLICT, "Operation cannot be fulfilled on pods/binding \"" + id.name()
                        + "\": pod " + id + " is already assigned to node \"" + p.nodeName() + "\"");
            }
            if (p.phase().isTerminal()) {
                bindRejections++;
                throw new ClusterException(Reason.CONFLICT, "pod " + id + " has already finished (" + p.phase().wire() + ")");
            }
            Node n = nodes.get(node);
            if (n == null) {
                bindRejections++;
                throw new ClusterException(Reason.INVALID, "cannot bind pod " + id + ": node \"" + node + "\" does not exist");
            }
            ClusterPod bound = p.withBinding(++resourceVersion, node, clock.getAsLong());
            pods.put(id.uid(), bound);
            Resources used = nodeUsed.get(node).plus(bound.request());
            nodeUsed.put(node, used);
            if (!used.fitsIn(n.allocatable())) {
                overcommittingBinds++;
            }
            binds++;
            publish(new ClusterEvent.PodChanged(bound));
            return bound;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The kubelet starts a bound, pending pod: Running when its node's bound pods fit the node's allocatable,
     * else Failed (kubelet admission, e.g. {@code OutOfcpu}). Returns the pod after the change, or null when
     * there was nothing to start (unknown, unbound, already started or finished).
     */
    public ClusterPod startPod(String uid) {
        lock.lock();
        try {
            ClusterPod p = pods.get(uid);
            if (p == null || !p.isBound() || p.phase() != PodPhase.PENDING) {
                return null;
            }
            Node n = nodes.get(p.nodeName());
            Resources used = nodeUsed.get(p.nodeName());
            if (n == null || !used.fitsIn(n.allocatable())) {
                Resources shortage = n == null ? Resources.ZERO : used.shortageAgainst(n.allocatable());
                admissionRejections.add("pod " + p.id() + " on " + p.nodeName() + ": "
                        + (n == null ? "node is gone" : "OutOf" + String.join(",", shortage.asMap().keySet())));
                ClusterPod failed = p.withPhase(++resourceVersion, PodPhase.FAILED, clock.getAsLong());
                release(p);
                pods.put(uid, failed);
                publish(new ClusterEvent.PodChanged(failed));
                return failed;
            }
            ClusterPod running = p.withPhase(++resourceVersion, PodPhase.RUNNING, clock.getAsLong());
            pods.put(uid, running);
            publish(new ClusterEvent.PodChanged(running));
            return running;
        } finally {
            lock.unlock();
        }
    }

    /** The container ended: Succeeded or Failed. Returns the pod after the change, or null if it had already ended or is gone. */
    public ClusterPod finishPod(String uid, PodPhase phase) {
        if (!phase.isTerminal()) {
            throw new IllegalArgumentException("a pod finishes as Succeeded or Failed, not " + phase.wire());
        }
        lock.lock();
        try {
            ClusterPod p = pods.get(uid);
            if (p == null || p.phase().isTerminal()) {
                return null;
            }
            if (p.holdsResources()) {
                release(p);
            }
            ClusterPod done = p.withPhase(++resourceVersion, phase, clock.getAsLong());
            pods.put(uid, done);
            publish(new ClusterEvent.PodChanged(done));
            return done;
        } finally {
            lock.unlock();
        }
    }

    /** Writes a Queue's status (the controller's merge patch). */
    public QueueObject patchQueueStatus(String name, QueueStatus status) {
        lock.lock();
        try {
            QueueObject old = queues.get(name);
            if (old == null) {
                throw new ClusterException(Reason.NOT_FOUND, "queues.scheduling.volcano.sh \"" + name + "\" not found");
            }
            QueueObject q = new QueueObject(old.spec(), status, ++resourceVersion, old.statusWrites() + 1);
            queues.put(name, q);
            queueStatusWrites++;
            publish(new ClusterEvent.QueueChanged(q));
            return q;
        } finally {
            lock.unlock();
        }
    }

    /** Writes a PodGroup's status (the controller's merge patch). */
    public PodGroupObject patchPodGroupStatus(GangKey key, PodGroupStatus status) {
        lock.lock();
        try {
            PodGroupObject old = podGroups.get(key);
            if (old == null) {
                throw new ClusterException(Reason.NOT_FOUND, "podgroups.scheduling.volcano.sh \"" + key + "\" not found");
            }
            PodGroupObject pg = new PodGroupObject(old.spec(), status, old.createdAt(), ++resourceVersion, old.statusWrites() + 1);
            podGroups.put(key, pg);
            podGroupStatusWrites++;
            publish(new ClusterEvent.PodGroupChanged(pg));
            return pg;
        } finally {
            lock.unlock();
        }
    }

    private void release(ClusterPod p) { // lock held; p holds resources
        nodeUsed.computeIfPresent(p.nodeName(), (k, used) -> used.minus(p.request()));
    }

    private void publish(ClusterEvent event) { // lock held
        events++;
        for (Watch w : watches) {
            w.offer(events, event);
        }
    }

    // ------------------------------------------------------------------------------------------- watches

    /**
     * Starts a watch: {@code listener} first receives every existing object (nodes, Queues, PodGroups, pods — in
     * that order, so a pod's PodGroup is known before the pod), then {@link ClusterEvent.Synced}, then every change.
     */
    public Watch watch(String name, ClusterListener listener) {
        Watch[] created = new Watch[1];
        Watch w = new Watch(name, listener, () -> {
            lock.lock();
            try {
                watches.remove(created[0]);
            } finally {
                lock.unlock();
            }
        });
        created[0] = w;
        lock.lock();
        try {
            nodes.values().forEach(n -> w.offer(events, new ClusterEvent.NodeAdded(n)));
            queues.values().forEach(q -> w.offer(events, new ClusterEvent.QueueChanged(q)));
            podGroups.values().forEach(pg -> w.offer(events, new ClusterEvent.PodGroupChanged(pg)));
            pods.values().forEach(p -> w.offer(events, new ClusterEvent.PodChanged(p)));
            w.offer(events, new ClusterEvent.Synced());
            watches.add(w);
        } finally {
            lock.unlock();
        }
        w.start();
        return w;
    }

    /** The number of the latest change (every watch has seen everything once it delivered this number). */
    public long lastEvent() {
        lock.lock();
        try {
            return events;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until every open watch delivered every change made so far; false on timeout. */
    public boolean awaitWatchesCaughtUp(Duration timeout) throws InterruptedException {
        long upTo;
        List<Watch> open;
        lock.lock();
        try {
            upTo = events;
            open = List.copyOf(watches);
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Watch w : open) {
            if (!w.awaitDelivered(upTo, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------- reads

    public ClusterPod pod(String uid) {
        lock.lock();
        try {
            return pods.get(uid);
        } finally {
            lock.unlock();
        }
    }

    public List<ClusterPod> pods() {
        lock.lock();
        try {
            return List.copyOf(pods.values());
        } finally {
            lock.unlock();
        }
    }

    public List<Node> nodes() {
        lock.lock();
        try {
            return List.copyOf(nodes.values());
        } finally {
            lock.unlock();
        }
    }

    public PodGroupObject podGroup(GangKey key) {
        lock.lock();
        try {
            return podGroups.get(key);
        } finally {
            lock.unlock();
        }
    }

    public List<PodGroupObject> podGroups() {
        lock.lock();
        try {
            return List.copyOf(podGroups.values());
        } finally {
            lock.unlock();
        }
    }

    public QueueObject queue(String name) {
        lock.lock();
        try {
            return queues.get(name);
        } finally {
            lock.unlock();
        }
    }

    public List<QueueObject> queues() {
        lock.lock();
        try {
            return List.copyOf(queues.values());
        } finally {
            lock.unlock();
        }
    }

    /** What the cluster's pods hold right now, in one consistent read. */
    public ClusterUsage usage() {
        lock.lock();
        try {
            return ClusterUsage.of(nodes.values(), nodeUsed, pods.values(), podGroups, queues.values());
        } finally {
            lock.unlock();
        }
    }

    /** Counters of API calls, for the report. */
    public record Counters(long events, long binds, long bindRejections, long overcommittingBinds, List<String> admissionRejections,
                           long queueStatusWrites, long podGroupStatusWrites) {}

    public Counters counters() {
        lock.lock();
        try {
            return new Counters(events, binds, bindRejections, overcommittingBinds, List.copyOf(admissionRejections), queueStatusWrites,
                    podGroupStatusWrites);
        } finally {
            lock.unlock();
        }
    }
}
