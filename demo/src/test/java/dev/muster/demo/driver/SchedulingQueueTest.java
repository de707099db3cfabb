package dev.muster.demo.driver;

import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.PodId;
import dev.muster.demo.cluster.ClusterPod;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SchedulingQueueTest {
    private final AtomicLong now = new AtomicLong();
    private final SchedulingQueue queue = new SchedulingQueue(now::get, Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(30));

    private static ClusterPod pod(String name, int priority, long createdAt) {
        return ClusterPod.created(new PodId("uid-" + name, "ns", name), res("1", "1Gi"), null, "muster", priority, null, createdAt);
    }

    private String popName() throws InterruptedException {
        SchedulingQueue.Entry e = queue.pop(Duration.ZERO);
        return e == null ? null : e.pod().id().name();
    }

    @Test
    void higherPriorityFirstThenOlderFirst() throws InterruptedException {
        queue.addOrUpdate(pod("late", 0, 30));
        queue.addOrUpdate(pod("early", 0, 10));
        queue.addOrUpdate(pod("urgent", 100, 50));

        assertThat(popName()).isEqualTo("urgent");
        assertThat(popName()).isEqualTo("early");
        assertThat(popName()).isEqualTo("late");
        assertThat(popName()).isNull();
    }

    @Test
    void anUnschedulablePodWaitsForAClusterEventAndThenForItsBackoff() throws InterruptedException {
        queue.addOrUpdate(pod("a", 0, 0));
        SchedulingQueue.Entry e = queue.pop(Duration.ZERO);
        queue.unschedulable(e);
        assertThat(queue.placeOf("uid-a")).isEqualTo(SchedulingQueue.Place.UNSCHEDULABLE);
        assertThat(popName()).isNull();

        queue.moveAllToActiveOrBackoff();
        assertThat(queue.placeOf("uid-a")).isEqualTo(SchedulingQueue.Place.BACKOFF);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(popName()).isEqualTo("a");
    }

    @Test
    void aClusterEventDuringTheCycleSendsTheFailedPodToBackoffNotToThePool() throws InterruptedException {
        queue.addOrUpdate(pod("a", 0, 0));
        queue.moveAllToActiveOrBackoff(); // before the cycle: does not count
        SchedulingQueue.Entry e = queue.pop(Duration.ZERO);
        queue.moveAllToActiveOrBackoff(); // during the cycle
        queue.unschedulable(e);

        assertThat(queue.placeOf("uid-a")).isEqualTo(SchedulingQueue.Place.BACKOFF);
    }

    @Test
    void podsLeftInThePoolAreRetriedAfterTheFlushInterval() throws InterruptedException {
        queue.addOrUpdate(pod("a", 0, 0));
        queue.unschedulable(queue.pop(Duration.ZERO));
        now.addAndGet(Duration.ofSeconds(29).toNanos());
        assertThat(popName()).isNull();
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(popName()).isEqualTo("a");
    }

    @Test
    void aFailedBindGoesToBackoffAndAPodBoundMeanwhileIsDropped() throws InterruptedException {
        queue.addOrUpdate(pod("a", 0, 0));
        queue.addOrUpdate(pod("b", 0, 1));
        SchedulingQueue.Entry a = queue.pop(Duration.ZERO);
        SchedulingQueue.Entry b = queue.pop(Duration.ZERO);

        queue.failed(a);
        queue.remove("uid-b"); // the cluster shows it bound
        queue.unschedulable(b);

        assertThat(queue.placeOf("uid-a")).isEqualTo(SchedulingQueue.Place.BACKOFF);
        assertThat(queue.placeOf("uid-b")).isNull();
        assertThat(queue.counts()).isEqualTo(new SchedulingQueue.Counts(0, 1, 0, 0, 0));
    }

    static Stream<Arguments> backoffs() {
        return Stream.of(Arguments.of(1, 1), Arguments.of(2, 2), Arguments.of(3, 4), Arguments.of(4, 8), Arguments.of(5, 10), Arguments.of(30, 10));
    }

    @ParameterizedTest(name = "after attempt {0} the backoff is {1}s")
    @MethodSource("backoffs")
    void backoffDoublesUpToTheMaximum(int attempts, int seconds) {
        assertThat(queue.backoffDuration(attempts)).isEqualTo(Duration.ofSeconds(seconds));
    }
}
