package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.Pod;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A filter about a pod the informers have not delivered yet waits for its arrival: the arrival answers it, a pod already
 * deleted is answered at once, and a pod that never comes leaves nothing behind.
 */
class PodArrivalsTest {
    @Test
    void theInformersDeliveringThePodCompletesTheWaitAndTheFilterThenPasses() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "8", "32Gi");
        Pod late = pod("late").requests("1", "1Gi").build();
        assertThatThrownBy(() -> h.scheduler.filter(late, h.nodeNames)).isInstanceOf(VerbRefusedException.class)
                .extracting(e -> ((VerbRefusedException) e).cause()).isEqualTo(VerbRefusedException.Cause.NOT_SEEN);

        CompletableFuture<Boolean> seen = h.scheduler.whenFilterable(VerbRefusedException.Cause.NOT_SEEN, late.uid(), Duration.ofMinutes(5));
        assertThat(seen).isNotDone();
        h.seen(late); // the informer's event, a moment later
        assertThat(seen).isCompletedWithValue(true);
        assertThat(h.scheduler.filter(late, h.nodeNames).feasible()).hasSize(1);
    }

    @Test
    void aPodAlreadyShownOrAlreadyDeletedIsAnsweredAtOnce() {
        SchedulerHarness h = SchedulerHarness.cluster(1, "8", "32Gi");
        Pod shown = h.seen(pod("shown").requests("1", "1Gi").build());
        assertThat(h.scheduler.whenFilterable(VerbRefusedException.Cause.NOT_SEEN, shown.uid(), Duration.ofMinutes(5))).isCompletedWithValue(true);

        Pod gone = h.seen(pod("gone").requests("1", "1Gi").build());
        h.scheduler.deletePod(gone.uid());
        assertThat(h.scheduler.whenFilterable(VerbRefusedException.Cause.NOT_SEEN, gone.uid(), Duration.ofMinutes(5))).isCompletedWithValue(false);
    }

    @Test
    void aPodThatNeverComesIsGivenUpAfterTheWaitAndNothingIsKept() {
        PodArrivals arrivals = new PodArrivals();
        CompletableFuture<Boolean> ghost = arrivals.await("ghost-uid", Duration.ofMillis(1));
        assertThat(ghost.join()).isFalse();
        org.awaitility.Awaitility.await().until(() -> arrivals.waiting() == 0); // removed by the timer's thread
        assertThat(arrivals.arrived("ghost-uid")).isNull();
    }

    @Test
    void noWaitWhenTooManyAlreadyWait() {
        PodArrivals arrivals = new PodArrivals();
        for (int i = 0; i < PodArrivals.MAX_WAITING; i++) {
            arrivals.await("u" + i, Duration.ofMinutes(5));
        }
        assertThat(arrivals.await("one-more", Duration.ofMinutes(5))).isCompletedWithValue(false);
        assertThat(arrivals.arrived("u7")).isNotNull();
    }
}
