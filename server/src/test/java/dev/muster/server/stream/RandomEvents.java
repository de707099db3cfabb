package dev.muster.server.stream;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded source of plausible allocation events: pods allocated in a few queues (and outside any gang),
 * released later with the same resources, and gangs changing state (including deletion). Not thread-safe.
 */
public final class RandomEvents {
    private static final String[] QUEUES = {"", "default", "research", "prod"};
    private static final GangState[] STATES = GangState.values();

    private final Random random;
    private final List<AllocationEvent.PodAllocated> live = new ArrayList<>();
    private long pods;

    public RandomEvents(long seed) {
        this.random = new Random(seed);
    }

    public AllocationEvent next() {
        int dice = random.nextInt(10);
        if (dice < 5 || live.isEmpty()) {
            String queue = QUEUES[random.nextInt(QUEUES.length)];
            GangKey gang = queue.isEmpty() ? null : new GangKey("ns-" + random.nextInt(3), "pg-" + random.nextInt(20));
            Resources.Builder r = Resources.builder().set("cpu", 100 + random.nextInt(4000)).set("memory", (1L + random.nextInt(64)) << 28).set("pods", 1);
            if (random.nextInt(4) == 0) {
                r.set("nvidia.com/gpu", 1 + random.nextInt(8));
            }
            long n = ++pods;
            var allocated = new AllocationEvent.PodAllocated(new PodId("uid-" + n, "ns", "pod-" + n), gang, queue, "node-" + random.nextInt(50), r.build());
            live.add(allocated);
            return allocated;
        }
        if (dice < 8) {
            var a = live.remove(random.nextInt(live.size()));
            return new AllocationEvent.PodReleased(a.pod(), a.gang(), a.queue(), a.node(), a.resources());
        }
        return new AllocationEvent.GangChanged(new GangKey("ns-" + random.nextInt(3), "pg-" + random.nextInt(20)), QUEUES[1 + random.nextInt(3)],
                STATES[random.nextInt(STATES.length)], random.nextBoolean() ? "" : "needs 8×(4 cpu, 16Gi), fits " + random.nextInt(8));
    }
}
