package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.status.GangNote;
import dev.muster.core.status.GangShortfall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GangEventsTest {
    private final FakeTicker ticker = new FakeTicker();
    private final List<GangNote> recorded = new ArrayList<>();
    private final Set<GangKey> deleted = new HashSet<>();
    private StatusPatchException failNext;
    private int attempts;
    private final EventRecorder recorder = change -> {
        attempts++;
        if (failNext != null) {
            StatusPatchException e = failNext;
            failNext = null;
            throw e;
        }
        recorded.add(change);
    };

    private GangEvents events;

    @BeforeEach
    void lead() {
        events = new GangEvents(recorder, new TokenBucket(10, 2, ticker), k -> !deleted.contains(k), ticker);
        events.setLeader(true);
    }

    private static GangShortfall shortOf(String gang) {
        return new GangShortfall(new GangKey("ns", gang), false, 2, 3, List.of("ns/" + gang + "-0"));
    }

    private static GangShortfall wholeOf(String gang) {
        return new GangShortfall(new GangKey("ns", gang), true, 3, 3, List.of());
    }

    private static GangNote preemptedOf(String gang) {
        return new GangNote(new GangKey("ns", gang), "Preempted", true, "Preempt", "preempted by ns/big (priority 9); evicting 3 of its pods");
    }

    @Test
    void eachCrossingIsRecordedOnceInOrder() {
        events.crossed(shortOf("a"));
        events.crossed(wholeOf("a"));
        assertThat(events.flush()).isEqualTo(2);
        assertThat(recorded).containsExactly(shortOf("a").asNote(), wholeOf("a").asNote());
        assertThat(events.flush()).as("nothing twice").isZero();
        assertThat(events.recorded()).isEqualTo(2);
    }

    @Test
    void pendingWorkIsBoundedPerGangKeepingTheNewest() {
        for (int i = 0; i < 1000; i++) {
            events.crossed(shortOf("a"));
            events.crossed(wholeOf("a"));
        }
        events.noted(preemptedOf("a"));
        events.crossed(shortOf("a"));
        assertThat(events.pending()).isEqualTo(GangEvents.PER_GANG);
        while (events.pending() > 0) {
            ticker.advance(Duration.ofSeconds(1));
            events.flush();
        }
        assertThat(recorded).containsExactly(shortOf("a").asNote(), wholeOf("a").asNote(), preemptedOf("a"), shortOf("a").asNote());
        assertThat(events.dropped()).isEqualTo(2002 - GangEvents.PER_GANG);
    }

    @Test
    void aBurstOfCrossingsDoesNotPushOutThePreemptionThatCausedIt() {
        events.noted(preemptedOf("a"));
        for (int i = 0; i < 10; i++) {
            events.crossed(shortOf("a"));
            events.crossed(wholeOf("a"));
        }
        while (events.pending() > 0) {
            ticker.advance(Duration.ofSeconds(1));
            events.flush();
        }
        assertThat(recorded).as("the preemption, then the newest crossings").containsExactly(preemptedOf("a"), wholeOf("a").asNote(),
                shortOf("a").asNote(), wholeOf("a").asNote());
    }

    @Test
    void theBudgetLimitsEventsPerFlushAndTheRestWaits() {
        for (String g : List.of("a", "b", "c", "d")) {
            events.crossed(shortOf(g));
        }
        assertThat(events.flush()).as("burst of 2").isEqualTo(2);
        assertThat(events.pending()).isEqualTo(2);
        ticker.advance(Duration.ofMillis(100)); // one token at 10/s
        assertThat(events.flush()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(1));
        assertThat(events.flush()).isEqualTo(1);
        assertThat(recorded).extracting(c -> c.gang().name()).containsExactly("a", "b", "c", "d");
    }

    @Test
    void aFailedEventIsDroppedNotRetried() {
        failNext = new StatusPatchException(StatusPatchException.Kind.SERVER_ERROR, 500, null, "boom", null);
        events.crossed(shortOf("a"));
        events.crossed(shortOf("b"));
        assertThat(events.flush()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(10));
        assertThat(events.flush()).isZero();
        assertThat(attempts).as("one attempt each").isEqualTo(2);
        assertThat(recorded).containsExactly(shortOf("b").asNote());
        assertThat(events.dropped()).isEqualTo(1);
    }

    @Test
    void anAdapterBugIsAFailureLikeAnyOther() {
        EventRecorder broken = change -> {
            throw new IllegalStateException("bug");
        };
        GangEvents e = new GangEvents(broken, new TokenBucket(10, 2, ticker), k -> true, ticker);
        e.setLeader(true);
        e.crossed(shortOf("a"));
        assertThat(e.flush()).isZero();
        assertThat(e.pending()).isZero();
        assertThat(e.dropped()).isEqualTo(1);
    }

    @Test
    void aStandbyRecordsNothingAndLosingTheLeadDropsWhatWaits() {
        events.setLeader(false);
        events.crossed(shortOf("a"));
        assertThat(events.pending()).isZero();
        events.setLeader(true);
        events.crossed(shortOf("b"));
        events.setLeader(false);
        assertThat(events.flush()).isZero();
        assertThat(recorded).isEmpty();
    }

    @Test
    void aCrossingOfADeletedPodGroupIsNotRecorded() {
        events.crossed(shortOf("a"));
        events.crossed(shortOf("b"));
        deleted.add(new GangKey("ns", "a"));
        events.flush();
        assertThat(recorded).containsExactly(shortOf("b").asNote());
    }
}
