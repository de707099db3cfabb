package dev.muster.core.gang;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The single pods preemption may read: by scheduler, below a priority, long enough in place, lowest priority and newest first. */
class SingleHoldersTest {
    private static List<String> uids(Iterator<SingleHolders.Entry> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(e -> out.add(e.uid()));
        return out;
    }

    @Test
    void readsOneSchedulersPodsBelowAPriorityLowestFirstAndNewestFirstWithin() {
        SingleHolders s = new SingleHolders();
        s.put("old-low", "muster", 0, 10);
        s.put("new-low", "muster", 0, 30);
        s.put("mid", "muster", 5, 20);
        s.put("high", "muster", 100, 5);
        s.put("other", "default-scheduler", 0, 1);

        assertThat(uids(s.below("muster", 100, Long.MAX_VALUE))).containsExactly("new-low", "old-low", "mid");
        assertThat(uids(s.below("muster", 5, Long.MAX_VALUE))).as("strictly below").containsExactly("new-low", "old-low");
        assertThat(uids(s.below("muster", 1_000, 20))).as("in place since 20 or earlier").containsExactly("old-low", "mid", "high");
        assertThat(uids(s.below("default-scheduler", 1_000, Long.MAX_VALUE))).containsExactly("other");
        assertThat(uids(s.below("nobody", 1_000, Long.MAX_VALUE))).isEmpty();
    }

    @Test
    void refilingMovesAPodAndRemovingForgetsIt() {
        SingleHolders s = new SingleHolders();
        s.put("p", "", 0, 10);
        s.put("p", "muster", 7, 10); // its observation named its scheduler and priority
        assertThat(uids(s.below("", 100, Long.MAX_VALUE))).isEmpty();
        assertThat(uids(s.below("muster", 100, Long.MAX_VALUE))).containsExactly("p");
        assertThat(s.size()).isEqualTo(1);

        s.remove("p");
        s.remove("p");
        assertThat(uids(s.below("muster", 100, Long.MAX_VALUE))).isEmpty();
        assertThat(s.size()).isZero();
        assertThat(s.contains("p")).isFalse();
    }
}
