package dev.muster.core.status;

import static dev.muster.core.status.FoldDriver.cpu;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.SequencedEvent;
import org.junit.jupiter.api.Test;

/** The stream is cut and resumed: the fold ends where an uninterrupted fold would, without double counting. */
class StreamResumeTest {

    @Test
    void snapshotAfterACutReplacesTheTotalsInsteadOfAddingToThem() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 2, "q");
        d.allocate("p1", "pg", "q", cpu(1000)).allocate("p2", "pg", "q", cpu(1000)).gang("pg", GangState.BOUND, "");
        // the stream is cut: these happen while the controller is away
        d.lose(new AllocationEvent.PodReleased(new PodId("p1", "ns", "p1"), FoldDriver.key("pg"), "q", "node-1", cpu(1000)));
        d.lose(new AllocationEvent.PodAllocated(new PodId("p3", "ns", "p3"), FoldDriver.key("pg"), "q", "node-1", cpu(500)));
        assertThat(d.q("q").allocated()).isEqualTo(cpu(2000));
        // resume: the extender no longer holds our position and sends a snapshot, then events continue
        d.resync();
        assertThat(d.q("q").allocated()).isEqualTo(cpu(1500));
        d.allocate("p4", "pg", "q", cpu(250));
        assertThat(d.q("q").allocated()).isEqualTo(cpu(1750));
        assertThat(d.fold.stats().appliedSequence()).isEqualTo(d.sequence());
    }

    @Test
    void resumingTwiceWithTheSameSnapshotChangesNothing() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 1, "q").pods("pg", 1, PodPhase.RUNNING, true);
        d.allocate("p1", "pg", "q", cpu(1000)).gang("pg", GangState.BOUND, "").resync();
        QueueStatus once = d.q("q");
        PodGroupStatus pgOnce = d.pg("pg");
        d.listener.take();
        d.resync().resync();
        assertThat(d.q("q")).isEqualTo(once);
        assertThat(d.pg("pg")).isEqualTo(pgOnce);
        assertThat(d.listener.take()).isEmpty();
    }

    /** Through the real journal: a reader that reads in pieces, falls out of the window and resumes. */
    @Test
    void readerOfTheJournalFoldsTheSameTotalsAsTheJournal() {
        AllocationJournal journal = new AllocationJournal(8, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
        FoldDriver d = new FoldDriver().queue("q");
        long position = 0;
        for (int i = 0; i < 100; i++) {
            PodId pod = new PodId("p" + i, "ns", "p" + i);
            journal.append(new AllocationEvent.PodAllocated(pod, FoldDriver.key("g" + i % 7), "q", "n", cpu(100)));
            if (i % 3 == 0) {
                journal.append(new AllocationEvent.PodReleased(pod, FoldDriver.key("g" + i % 7), "q", "n", cpu(100)));
            }
            if (i % 10 == 9) { // every tenth step the controller catches up: sometimes in the window, sometimes not
                position = drain(journal, position, d.fold);
            }
        }
        drain(journal, position, d.fold);
        assertThat(d.q("q").allocated()).isEqualTo(journal.snapshot().allocatedByQueue().get("q"));
        assertThat(d.q("q").allocated()).isEqualTo(cpu(100L * (100 - 34)));
    }

    private static long drain(AllocationJournal journal, long after, AllocationListener listener) {
        while (true) {
            switch (journal.readAfter(after, 4)) {
                case AllocationJournal.Read.SnapshotRequired s -> {
                    listener.onSnapshot(s.snapshot());
                    after = s.snapshot().sequence();
                }
                case AllocationJournal.Read.Events e -> {
                    if (e.events().isEmpty()) {
                        return after;
                    }
                    for (SequencedEvent ev : e.events()) {
                        listener.onEvent(ev);
                        after = ev.sequence();
                    }
                }
            }
        }
    }
}
