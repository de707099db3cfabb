package dev.muster.demo.scenario;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * What a scenario creates and when, drawn once from its seed: the same scenario always gives the same plan.
 * Each workload has its own random stream (derived from the seed and its position), so adding a workload does
 * not change the others. Immutable.
 */
public record WorkloadPlan(List<Item> items) {
    /** A pod to create. {@code uid} is derived from namespace and name, so it is stable across runs. */
    public record PlannedPod(PodId id, Resources requests, Duration runFor, int priority) {}

    /** Something that arrives at simulated time {@code at} (nanoseconds). */
    public sealed interface Item {
        long at();
    }

    /** A PodGroup and its member pods (each annotated with {@link GangMembership#GROUP_NAME}). */
    public record GangArrival(long at, PodGroupSpec podGroup, List<PlannedPod> pods) implements Item {
        public GangArrival {
            pods = List.copyOf(pods);
        }
    }

    public record PodArrival(long at, PlannedPod pod) implements Item {}

    public WorkloadPlan {
        items = List.copyOf(items);
    }

    public static WorkloadPlan of(Scenario scenario) {
        List<Item> items = new ArrayList<>();
        SplittableRandom root = new SplittableRandom(scenario.seed());
        for (GangWorkload w : scenario.gangs()) {
            SplittableRandom r = root.split();
            long at = w.arrival().start().toNanos();
            for (int i = 1; i <= w.count(); i++) {
                at += w.arrival().nextGapNanos(r);
                int size = (int) w.size().draw(r);
                int minMember = w.minMember().draw(size, r);
                Resources requests = w.shape().draw(r);
                Duration runFor = w.duration().draw(r);
                String group = w.name() + "-" + i;
                GangKey key = new GangKey(w.namespace(), group);
                List<PlannedPod> pods = new ArrayList<>(size);
                for (int j = 0; j < size; j++) {
                    pods.add(new PlannedPod(id(w.namespace(), group + "-" + j), requests, runFor, w.priority()));
                }
                items.add(new GangArrival(at, new PodGroupSpec(key, minMember, Map.of(), Resources.ZERO, w.queue(), "", null, w.api(), null), pods));
            }
        }
        for (PodWorkload w : scenario.pods()) {
            SplittableRandom r = root.split();
            long at = w.arrival().start().toNanos();
            for (int i = 1; i <= w.count(); i++) {
                at += w.arrival().nextGapNanos(r);
                items.add(new PodArrival(at, new PlannedPod(id(w.namespace(), w.name() + "-" + i), w.shape().draw(r), w.duration().draw(r),
                        w.priority())));
            }
        }
        items.sort(Comparator.comparingLong(Item::at));
        return new WorkloadPlan(items);
    }

    private static PodId id(String namespace, String name) {
        UUID uid = UUID.nameUUIDFromBytes((namespace + "/" + name).getBytes(StandardCharsets.UTF_8));
        return new PodId(uid.toString(), namespace, name);
    }

    /** Simulated time of the last arrival (0 when nothing arrives). */
    public long lastArrival() {
        return items.isEmpty() ? 0 : items.getLast().at();
    }

    public int gangCount() {
        return (int) items.stream().filter(i -> i instanceof GangArrival).count();
    }

    public int podCount() {
        return items.stream().mapToInt(i -> i instanceof GangArrival g ? g.pods().size() : 1).sum();
    }
}
