package dev.muster.server.sync;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.scheduler.ClusterSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A fake {@link ClusterSink} that materializes what it is told (last write wins, deletes of unknown keys are
 * absorbed, as the contract demands) and records every call. Thread-safe: all state guarded by {@code this}; readers
 * get copies.
 */
final class RecordingClusterSink implements ClusterSink {
    /** Everything the sink holds, as comparable immutable maps. */
    record State(Map<String, Node> nodes, Map<String, Pod> pods, Map<GangKey, PodGroupSpec> podGroups, Map<String, QueueSpec> queues) {}

    private final Map<String, Node> nodes = new TreeMap<>();
    private final Map<String, Pod> pods = new TreeMap<>();
    private final Map<GangKey, PodGroupSpec> podGroups = new TreeMap<>();
    private final Map<String, QueueSpec> queues = new TreeMap<>();
    private final List<String> calls = new ArrayList<>();
    private int syncedCount;
    private RuntimeException failNext;

    /** The next call throws {@code e} (a core bug, for the handler's failure policy). */
    synchronized void failNextCall(RuntimeException e) {
        failNext = e;
    }

    private void call(String what) {
        calls.add(what);
        if (failNext != null) {
            RuntimeException e = failNext;
            failNext = null;
            throw e;
        }
    }

    @Override
    public synchronized void upsertNode(Node node) {
        call("upsertNode " + node.name());
        nodes.put(node.name(), node);
    }

    @Override
    public synchronized void deleteNode(String name) {
        call("deleteNode " + name);
        nodes.remove(name);
    }

    @Override
    public synchronized void upsertPod(Pod pod) {
        call("upsertPod " + pod.id() + " " + pod.uid());
        pods.put(pod.uid(), pod);
    }

    @Override
    public synchronized void deletePod(String uid) {
        call("deletePod " + uid);
        pods.remove(uid);
    }

    @Override
    public synchronized void upsertPodGroup(PodGroupSpec podGroup) {
        call("upsertPodGroup " + podGroup.key());
        podGroups.put(podGroup.key(), podGroup);
    }

    @Override
    public synchronized void deletePodGroup(GangKey key) {
        call("deletePodGroup " + key);
        podGroups.remove(key);
    }

    @Override
    public synchronized void upsertQueue(QueueSpec queue) {
        call("upsertQueue " + queue.name());
        queues.put(queue.name(), queue);
    }

    @Override
    public synchronized void deleteQueue(String name) {
        call("deleteQueue " + name);
        queues.remove(name);
    }

    @Override
    public synchronized void markSynced() {
        call("markSynced");
        syncedCount++;
    }

    synchronized State state() {
        return new State(Map.copyOf(nodes), Map.copyOf(pods), Map.copyOf(podGroups), Map.copyOf(queues));
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    synchronized int syncedCount() {
        return syncedCount;
    }

    synchronized Pod pod(String uid) {
        return pods.get(uid);
    }

    synchronized Node node(String name) {
        return nodes.get(name);
    }
}
