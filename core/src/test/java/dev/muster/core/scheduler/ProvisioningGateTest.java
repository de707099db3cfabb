package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GateHold;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The provisioning hold is asked once per gang per tick: its answer serves the admission pass, the gate's sweep and the
 * ask that follows; outside a tick every call asks.
 */
class ProvisioningGateTest {
    /** Keeps every gang, counting how often it was asked about each. */
    static final class Counting implements GateHold {
        final Map<String, Integer> asked = new ConcurrentHashMap<>();

        @Override
        public String reason(Gang gang, long now) {
            asked.merge(gang.key().name(), 1, Integer::sum);
            return "waiting for 2 nodes from the autoscaler";
        }
    }

    @Test
    void oneAnswerPerGangServesTheWholeTick() {
        QueueGateTest.Lifts lifts = new QueueGateTest.Lifts();
        SchedulerHarness h = QueueGateTest.cluster(QueueGate.on(lifts), null, 4);
        h.scheduler.upsertQueue(queue("research", res("8", "64Gi"))); // the queue admits it: the hold alone keeps it
        QueueGateTest.gated(h, "train", "research", 2, 0, QueueGateTest.MUSTERS);
        Counting hold = new Counting();
        h.scheduler.provisioningHold(hold);

        h.ticks(1, Duration.ofMillis(200));
        assertThat(hold.asked).containsExactly(Map.entry("train", 1));
        assertThat(h.scheduler.heldForNodes()).containsExactly(Map.entry(new GangKey("default", "train"), "waiting for 2 nodes from the autoscaler"));
        assertThat(h.scheduler.gang(new GangKey("default", "train")).why().text()).contains("waiting for 2 nodes from the autoscaler");
        assertThat(lifts.lifted).isEmpty();

        h.ticks(3, Duration.ofMillis(200));
        assertThat(hold.asked).containsExactly(Map.entry("train", 4));
        h.scheduler.askProvisioning(); // outside a tick: asked afresh
        assertThat(hold.asked).containsExactly(Map.entry("train", 5));
    }
}
