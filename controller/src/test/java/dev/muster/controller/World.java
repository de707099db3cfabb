package dev.muster.controller;

import dev.muster.controller.writer.FakeStatusPatcher;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.PodObservation;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusKey;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.SequencedEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A cluster in memory for controller tests: the objects the informers would list and watch, the extender's
 * real {@link AllocationJournal}, and a fake API that holds written status. Attached controllers receive every
 * change as informers would deliver it; the stream is pulled with {@link #stream}. Not thread-safe.
 */
final class World {
    static final String NS = "ns";
    final FakeStatusPatcher api = new FakeStatusPatcher();
    final AllocationJournal journal;
    private final Map<String, QueueSpec> queues = new LinkedHashMap<>();
    private final Map<GangKey, PodGroupSpec> podGroups = new LinkedHashMap<>();
    private final Map<String, PodObservation> pods = new LinkedHashMap<>();
    private final List<Controller> attached = new ArrayList<>();
    private final Map<Controller, Long> positions = new HashMap<>();

    World(int journalWindow) {
        journal = new AllocationJournal(journalWindow, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
    }

    static GangKey key(String pg) {
        return new GangKey(NS, pg);
    }

    /** A new controller process: lists everything (with the status the API shows), then follows changes. */
    void start(Controller c) {
        for (QueueSpec q : queues.values()) {
            c.cluster().queue(q, (QueueStatus) api.inApi(StatusKey.queue(q.name())));
        }
        for (PodGroupSpec pg : podGroups.values()) {
            c.cluster().podGroup(pg, (PodGroupStatus) api.inApi(StatusKey.podGroup(pg.key())));
        }
        pods.values().forEach(c.cluster()::pod);
        c.cluster().synced();
        attached.add(c);
        positions.put(c, 0L);
    }

    /** The process is gone. */
    void stop(Controller c) {
        attached.remove(c);
        positions.remove(c);
    }

    /** Each attached controller reads the stream up to now, as its stream client would. */
    void stream() {
        for (Controller c : attached) {
            long after = positions.get(c);
            while (true) {
                AllocationJournal.Read read = journal.readAfter(after, 100);
                if (read instanceof AllocationJournal.Read.SnapshotRequired s) {
                    c.allocations().onSnapshot(s.snapshot());
                    after = s.snapshot().sequence();
                    continue;
                }
                List<SequencedEvent> events = ((AllocationJournal.Read.Events) read).events();
                if (events.isEmpty()) {
                    break;
                }
                for (SequencedEvent e : events) {
                    c.allocations().onEvent(e);
                    after = e.sequence();
                }
            }
            if (after == 0) {
                c.allocations().onCaughtUp(); // as the stream client says for an empty journal
            }
            positions.put(c, after);
        }
    }

    /** The informers deliver the status the API now holds (the echo of writes) to every attached controller. */
    void echoStatus() {
        for (Controller c : attached) {
            for (QueueSpec q : queues.values()) {
                c.cluster().queue(q, (QueueStatus) api.inApi(StatusKey.queue(q.name())));
            }
            for (PodGroupSpec pg : podGroups.values()) {
                c.cluster().podGroup(pg, (PodGroupStatus) api.inApi(StatusKey.podGroup(pg.key())));
            }
        }
    }

    World queue(String name) {
        QueueSpec q = QueueSpec.open(name, null);
        queues.put(name, q);
        attached.forEach(c -> c.cluster().queue(q, (QueueStatus) api.inApi(StatusKey.queue(name))));
        return this;
    }

    World podGroup(String name, int minMember, String queue) {
        PodGroupSpec pg = PodGroupSpec.of(key(name), minMember, queue);
        podGroups.put(pg.key(), pg);
        attached.forEach(c -> c.cluster().podGroup(pg, (PodGroupStatus) api.inApi(StatusKey.podGroup(pg.key()))));
        return this;
    }

    World deletePodGroup(String name) {
        podGroups.remove(key(name));
        attached.forEach(c -> c.cluster().podGroupDeleted(key(name)));
        journal.append(new AllocationEvent.GangChanged(key(name), "", GangState.DELETED, ""));
        return this;
    }

    World pod(String uid, String pg, PodPhase phase, boolean bound) {
        PodObservation p = new PodObservation(uid, key(pg), phase, bound);
        pods.put(uid, p);
        attached.forEach(c -> c.cluster().pod(p));
        return this;
    }

    World deletePod(String uid) {
        pods.remove(uid);
        attached.forEach(c -> c.cluster().podDeleted(uid));
        return this;
    }

    World gang(String pg, GangState state, String reason) {
        journal.append(new AllocationEvent.GangChanged(key(pg), podGroups.get(key(pg)).queue(), state, reason));
        return this;
    }

    World allocate(String uid, String pg, Resources r) {
        journal.append(new AllocationEvent.PodAllocated(new PodId(uid, NS, uid), key(pg), podGroups.get(key(pg)).queue(), "node-1", r));
        return this;
    }

    World release(String uid, String pg, Resources r) {
        journal.append(new AllocationEvent.PodReleased(new PodId(uid, NS, uid), key(pg), podGroups.get(key(pg)).queue(), "node-1", r));
        return this;
    }

    /** The extender decided to evict the first {@code n} pods of {@code victim} for {@code preemptor}, by priority. */
    World preempt(String preemptor, String victim, int n, Resources each) {
        List<dev.muster.core.preempt.Victim> victims = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            victims.add(new dev.muster.core.preempt.Victim(new PodId(victim + "-" + i, NS, victim + "-" + i), key(victim),
                    podGroups.get(key(victim)).queue(), 1, "node-1", each));
        }
        journal.append(new AllocationEvent.PreemptionDecided(key(preemptor), podGroups.get(key(preemptor)).queue(), 1000,
                dev.muster.core.preempt.PreemptionKind.PRIORITY, victims, 1));
        return this;
    }

    /** A gang of {@code n} pods goes from created to running, with its allocations streamed. */
    World runGang(String pg, int n, String queue, Resources each) {
        podGroup(pg, n, queue);
        for (int i = 0; i < n; i++) {
            pod(pg + "-" + i, pg, PodPhase.PENDING, false);
        }
        gang(pg, GangState.ADMITTED, "").gang(pg, GangState.RESERVED, "");
        for (int i = 0; i < n; i++) {
            allocate(pg + "-" + i, pg, each);
            pod(pg + "-" + i, pg, PodPhase.RUNNING, true);
        }
        return gang(pg, GangState.BOUND, "");
    }

    List<StatusKey> keys() {
        List<StatusKey> out = new ArrayList<>();
        queues.keySet().forEach(q -> out.add(StatusKey.queue(q)));
        podGroups.keySet().forEach(g -> out.add(StatusKey.podGroup(g)));
        return out;
    }
}
