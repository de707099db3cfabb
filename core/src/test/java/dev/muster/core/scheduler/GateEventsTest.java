package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.GateEvents;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Gated pods are told what their gang waits for: once per reason (not every tick), a new kind of reason at once, the
 * same reason with other numbers no sooner than {@code GateTold.RETELL_AFTER_NANOS} after the last, each pod once more
 * when its gate is lifted; nothing while the lifter is not ready (a standby).
 */
class GateEventsTest {
    record Told(String pod, String note, boolean lifted) {}

    static final class Events implements GateEvents {
        final List<Told> told = new CopyOnWriteArrayList<>();

        @Override
        public void waiting(GangKey gang, List<PodId> pods, String note) {
            pods.forEach(p -> told.add(new Told(p.name(), note, false)));
        }

        @Override
        public void lifted(GangKey gang, PodId pod, String note) {
            told.add(new Told(pod.name(), note, true));
        }
    }

    @Test
    void aGangHeldByItsQueueTellsEachPodOnceThenAgainOnlyWhenTheReasonChangesAndWhenLifted() {
        QueueGateTest.Lifts lifts = new QueueGateTest.Lifts();
        Events events = new Events();
        SchedulerHarness h = QueueGateTest.cluster(QueueGate.on(lifts).withEvents(events), null, 4);
        h.scheduler.upsertQueue(queue("research", res("2", "64Gi"))); // smaller than the gang's 4 cpu
        QueueGateTest.gated(h, "train", "research", 2, 0, QueueGateTest.MUSTERS);
        h.ticks(10, Duration.ofMillis(200));

        assertThat(events.told).as("one event per pod, not one per tick").hasSize(2)
                .extracting(Told::pod).containsExactlyInAnyOrder("train-0", "train-1");
        assertThat(events.told).allSatisfy(t -> assertThat(t.note()).startsWith("gang default/train: waiting for queue research: ")
                .contains("capability"));

        h.scheduler.upsertQueue(queue("research", res("3", "64Gi"))); // the same reason with other numbers
        h.ticks(5, Duration.ofSeconds(1));
        assertThat(events.told).as("other numbers alone wait out the pace").hasSize(2);
        h.ticks(30, Duration.ofSeconds(1));
        assertThat(events.told).hasSize(4);
        assertThat(events.told.subList(2, 4)).allSatisfy(t -> assertThat(t.note()).contains("waiting for queue research", "capability 3 cpu"));

        h.scheduler.upsertQueue(new QueueSpec("research", QueueState.CLOSED, 1, res("3", "64Gi"), null, null, true)); // another kind
        h.ticks(1, Duration.ofMillis(200));
        assertThat(events.told).as("a new kind of reason is told at once").hasSize(6);
        assertThat(events.told.subList(4, 6)).allSatisfy(t -> assertThat(t.note()).contains("waiting for queue research", "is Closed"));

        h.scheduler.upsertQueue(queue("research", res("8", "64Gi")));
        h.ticks(2, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("train-0", "train-1");
        assertThat(events.told.subList(6, events.told.size())).hasSize(2).allSatisfy(t -> {
            assertThat(t.lifted()).isTrue();
            assertThat(t.note()).isEqualTo("gang default/train: admitted by queue research; scheduling gate muster.dev/queue-admission lifted");
        });
    }

    @Test
    void aStandbyTellsNothing() {
        QueueGateTest.Lifts lifts = new QueueGateTest.Lifts() {
            @Override
            public boolean ready() {
                return false;
            }
        };
        Events events = new Events();
        SchedulerHarness h = QueueGateTest.cluster(QueueGate.on(lifts).withEvents(events), null, 4);
        h.scheduler.upsertQueue(queue("research", res("2", "64Gi")));
        QueueGateTest.gated(h, "train", "research", 2, 0, QueueGateTest.MUSTERS);
        h.ticks(5, Duration.ofMillis(200));
        assertThat(events.told).isEmpty();
        assertThat(lifts.lifted).isEmpty();
    }
}
