package dev.muster.core.stream;

import dev.muster.core.model.GangState;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AllocationJournalTest {
    private final AllocationJournal journal = new AllocationJournal(4, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(42L)));

    private static AllocationEvent alloc(int i, String queue) {
        return new AllocationEvent.PodAllocated(new PodId("u" + i, "d", "p" + i), null, queue, "n", req("1", "1Gi"));
    }

    @Test
    void readsInOrderAfterAGivenSequence() {
        for (int i = 1; i <= 3; i++) {
            assertThat(journal.append(alloc(i, "q"))).isEqualTo(i);
        }
        AllocationJournal.Read r = journal.readAfter(1, 10);
        assertThat(r).isInstanceOf(AllocationJournal.Read.Events.class);
        assertThat(((AllocationJournal.Read.Events) r).events()).extracting(SequencedEvent::sequence).containsExactly(2L, 3L);
        assertThat(((AllocationJournal.Read.Events) journal.readAfter(3, 10)).events()).isEmpty();
        assertThat(((AllocationJournal.Read.Events) journal.readAfter(0, 2)).events()).extracting(SequencedEvent::sequence).containsExactly(1L, 2L);
    }

    @Test
    void aResumePointOutsideTheWindowGetsASnapshotWithTheTotalsOfEverything() {
        for (int i = 1; i <= 10; i++) {
            journal.append(alloc(i, i % 2 == 0 ? "even" : "odd"));
        }
        journal.append(new AllocationEvent.PodReleased(new PodId("u1", "d", "p1"), null, "odd", "n", req("1", "1Gi")));
        journal.append(new AllocationEvent.GangChanged(new GangKey("d", "g"), "even", GangState.RESERVED, "held"));

        AllocationJournal.Read r = journal.readAfter(2, 10);
        assertThat(r).isInstanceOf(AllocationJournal.Read.SnapshotRequired.class);
        AllocationSnapshot s = ((AllocationJournal.Read.SnapshotRequired) r).snapshot();
        assertThat(s.sequence()).isEqualTo(12);
        assertThat(s.allocatedByQueue()).containsEntry("even", req("1", "1Gi").times(5)).containsEntry("odd", req("1", "1Gi").times(4));
        assertThat(s.gangs()).containsKey(new GangKey("d", "g"));
        // the oldest sequence still held can be resumed after
        assertThat(journal.readAfter(8, 10)).isInstanceOf(AllocationJournal.Read.Events.class);
    }

    @Test
    void aResumePointFromTheFutureGetsASnapshot() {
        journal.append(alloc(1, "q"));
        assertThat(journal.readAfter(99, 10)).isInstanceOf(AllocationJournal.Read.SnapshotRequired.class);
    }

    @Test
    void listenersAreWokenOnAppendAndCanUnsubscribe() {
        AtomicInteger woken = new AtomicInteger();
        Runnable unsubscribe = journal.subscribe(woken::incrementAndGet);
        journal.append(alloc(1, "q"));
        unsubscribe.run();
        journal.append(alloc(2, "q"));
        assertThat(woken).hasValue(1);
    }

    @Test
    void totalsDropQueuesThatReturnToZero() {
        journal.append(alloc(1, "q"));
        journal.append(new AllocationEvent.PodReleased(new PodId("u1", "d", "p1"), null, "q", "n", req("1", "1Gi")));
        assertThat(journal.snapshot().allocatedByQueue()).isEmpty();
        assertThat(Resources.ZERO.isZero()).isTrue();
    }
}
