package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The pool that gives each test class a cluster of its own: no cluster held twice, never more than its maximum started. */
class ClusterPoolTest {
    /** A stand-in for a cluster: only its identity matters here. */
    private record Cluster(int id) {}

    @Test
    void manyClassesAtOnceNeverShareAClusterAndNeverStartMoreThanTheMaximum() throws Exception {
        AtomicInteger started = new AtomicInteger();
        ClusterPool<Cluster> pool = new ClusterPool<>(Cluster.class, 3, () -> new Cluster(started.incrementAndGet()));
        Set<Cluster> held = ConcurrentHashMap.newKeySet();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> classes = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            classes.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    for (int i = 0; i < 500; i++) {
                        Cluster c = pool.take();
                        if (!held.add(c)) {
                            failures.add(new AssertionError(c + " held by two classes at once"));
                        }
                        Thread.onSpinWait();
                        held.remove(c);
                        pool.give(c);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        go.countDown();
        for (Thread t : classes) {
            t.join();
        }
        assertThat(failures).isEmpty();
        assertThat(started.get()).isBetween(1, 3);
    }

    @Test
    void aClusterThatFailsToStartLeavesItsPlaceForTheNextClass() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ClusterPool<Cluster> pool = new ClusterPool<>(Cluster.class, 1, () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("etcd did not start");
            }
            return new Cluster(calls.get());
        });
        assertThatThrownBy(pool::take).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("could not start a Cluster").hasMessageContaining("etcd did not start");
        Cluster c = pool.take(); // the one place is free again: no wait for a cluster that never came
        assertThat(c.id()).isEqualTo(2);
        pool.give(c);
        assertThat(pool.take()).isSameAs(c);
    }
}
