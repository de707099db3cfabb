package dev.muster.server.sync;

import dev.muster.common.kube.ConversionException;
import dev.muster.common.kube.GangApiGroups;
import dev.muster.common.kube.GangClaims;
import dev.muster.common.kube.KubeWorkload;
import dev.muster.common.kube.WorkloadTemplates;
import dev.muster.common.kube.RawCustomObject;
import dev.muster.core.model.GangApi;
import dev.muster.common.kube.PodConverter;
import dev.muster.common.kube.PodGroupConverter;
import dev.muster.common.kube.QueueConverter;
import dev.muster.common.kube.VolcanoPodGroup;
import dev.muster.common.kube.VolcanoQueue;
import dev.muster.core.model.GangMembership;
import dev.muster.core.scheduler.ClusterSink;
import dev.muster.server.sync.NodeConverter;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates informer events into {@link ClusterSink} calls. Translation (apart from which PodGroups claim a name and
 * which Workload templates exist): it keeps no other cluster state, so the same
 * events (or the same final state, listed again after a restart) produce the same sink contents.
 *
 * <ul>
 *   <li>Pods: every add/update is {@code upsertPod} with the pod's phase and {@code spec.nodeName} (bound by Muster,
 *       by another scheduler, or by hand — the sink decides what holds resources); an update whose uid differs from
 *       the previous object (the pod was deleted and recreated under the same name while the watch was down) first
 *       deletes the old uid; every delete, including a {@code DeletedFinalStateUnknown}, is {@code deletePod(uid)}.</li>
 *   <li>Nodes, Queues: upsert on add/update, delete by name/key.</li>
 *   <li>PodGroups of every gang API (Volcano, Kubernetes, scheduler-plugins) go through {@link GangClaims}: when two
 *       APIs define a PodGroup of the same name in one namespace, only the older one is the gang.</li>
 *   <li>Kubernetes PodGroups and Workloads go through {@link WorkloadTemplates}: a PodGroup's template reference is
 *       resolved against the Workloads seen, and resolved again when its Workload arrives, changes or is deleted.</li>
 * </ul>
 *
 * <p>Failure policy: an object that cannot be converted, or a sink call that throws, is logged with the
 * object's name, counted in {@link #skippedObjects()}, and skipped — the sink keeps what it had for that object.
 * Nothing ever propagates to the informer. Thread-safe (stateless apart from the counter); informers call it from
 * one thread per resource type.
 */
public final class ClusterEventHandler {
    private static final Logger log = LoggerFactory.getLogger(ClusterEventHandler.class);

    private final ClusterSink sink;
    private final String schedulerName;
    private final LongAdder skipped = new LongAdder();
    private final GangClaims claims = new GangClaims();
    private final WorkloadTemplates templates = new WorkloadTemplates();

    public ClusterEventHandler(ClusterSink sink) {
        this(sink, dev.muster.core.scheduler.SchedulerConfig.DEFAULT_SCHEDULER_NAME);
    }

    /** @param schedulerName pods of other schedulers are only accounted for, never gang members */
    public ClusterEventHandler(ClusterSink sink, String schedulerName) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.schedulerName = Objects.requireNonNull(schedulerName, "schedulerName");
    }

    /** A pod was added ({@code previous} null) or updated. */
    public void podUpserted(V1Pod previous, V1Pod pod) {
        guarded("pod", pod == null ? null : pod.getMetadata(), () -> {
            var core = GangMembership.servedBy(PodConverter.toCore(pod),
                    pod.getSpec() == null ? null : pod.getSpec().getSchedulerName(), schedulerName);
            if (previous != null) {
                String previousUid = previous.getMetadata() == null ? null : previous.getMetadata().getUid();
                if (previousUid != null && !previousUid.equals(core.uid())) {
                    sink.deletePod(previousUid);
                }
            }
            sink.upsertPod(core);
        });
    }

    /** A pod was deleted; {@code pod} is its last known state (possibly stale when the watch missed the delete). */
    public void podDeleted(V1Pod pod) {
        guarded("pod delete", pod == null ? null : pod.getMetadata(), () -> sink.deletePod(PodConverter.idOf(pod).uid()));
    }

    public void nodeUpserted(V1Node node) {
        guarded("node", node == null ? null : node.getMetadata(), () -> sink.upsertNode(NodeConverter.toCore(node)));
    }

    public void nodeDeleted(V1Node node) {
        guarded("node delete", node == null ? null : node.getMetadata(), () -> sink.deleteNode(NodeConverter.nameOf(node)));
    }

    public void podGroupUpserted(VolcanoPodGroup podGroup) {
        podGroupUpserted(GangApi.VOLCANO, podGroup);
    }

    public void podGroupDeleted(VolcanoPodGroup podGroup) {
        podGroupDeleted(GangApi.VOLCANO, podGroup);
    }

    /** A PodGroup of {@code api} was added or updated. */
    public void podGroupUpserted(GangApi api, RawCustomObject podGroup) {
        guarded(api.label() + " podgroup", podGroup == null ? null : podGroup.getMetadata(), () -> {
            if (api == GangApi.KUBERNETES) {
                templates.podGroupUpserted(podGroup, spec -> apply(claims.claim(api, spec, GangApiGroups.createdAt(podGroup))));
            } else {
                apply(claims.claim(api, GangApiGroups.toCore(api, podGroup), GangApiGroups.createdAt(podGroup)));
            }
        });
    }

    /** A PodGroup of {@code api} was deleted. */
    public void podGroupDeleted(GangApi api, RawCustomObject podGroup) {
        guarded(api.label() + " podgroup delete", podGroup == null ? null : podGroup.getMetadata(), () -> {
            if (api == GangApi.KUBERNETES) {
                templates.podGroupDeleted(podGroup, () -> apply(claims.release(api, PodGroupConverter.keyOf(podGroup))));
            } else {
                apply(claims.release(api, PodGroupConverter.keyOf(podGroup)));
            }
        });
    }

    /** Kubernetes' Workloads are watched from now on: a PodGroup naming a missing one is unresolved, not unknown. */
    public void watchingWorkloads() {
        templates.watching();
    }

    /** A Workload was added or updated: the Kubernetes PodGroups that name it are resolved again. */
    public void workloadUpserted(KubeWorkload workload) {
        guarded("workload", workload == null ? null : workload.getMetadata(),
                () -> templates.workloadUpserted(workload, pg -> podGroupUpserted(GangApi.KUBERNETES, pg)));
    }

    /** A Workload was deleted: the Kubernetes PodGroups that name it become unresolved (not scheduled, saying why). */
    public void workloadDeleted(KubeWorkload workload) {
        guarded("workload delete", workload == null ? null : workload.getMetadata(),
                () -> templates.workloadDeleted(workload, pg -> podGroupUpserted(GangApi.KUBERNETES, pg)));
    }

    private void apply(GangClaims.Effect effect) {
        switch (effect) {
            case GangClaims.Effect.Upsert u -> sink.upsertPodGroup(u.spec());
            case GangClaims.Effect.Delete d -> sink.deletePodGroup(d.key());
            case GangClaims.Effect.None n -> { }
        }
    }

    public void queueUpserted(VolcanoQueue queue) {
        guarded("queue", queue == null ? null : queue.getMetadata(), () -> sink.upsertQueue(QueueConverter.toCore(queue)));
    }

    public void queueDeleted(VolcanoQueue queue) {
        guarded("queue delete", queue == null ? null : queue.getMetadata(), () -> sink.deleteQueue(QueueConverter.nameOf(queue)));
    }

    /** Objects skipped since start because they could not be converted or the sink rejected them. */
    public long skippedObjects() {
        return skipped.sum();
    }

    private void guarded(String what, V1ObjectMeta meta, Runnable action) {
        try {
            if (meta == null) {
                throw new ConversionException(what + " event without an object or metadata");
            }
            action.run();
        } catch (ConversionException e) {
            skipped.increment();
            log.warn("skipped {} {}: {}", what, describe(meta), e.getMessage());
        } catch (RuntimeException e) {
            skipped.increment();
            log.error("skipped {} {}: the scheduler core rejected it", what, describe(meta), e);
        }
    }

    private static String describe(V1ObjectMeta meta) {
        if (meta == null) {
            return "(no metadata)";
        }
        String ns = meta.getNamespace();
        return (ns == null || ns.isEmpty() ? "" : ns + "/") + meta.getName() + (meta.getUid() == null ? "" : " uid " + meta.getUid());
    }
}
