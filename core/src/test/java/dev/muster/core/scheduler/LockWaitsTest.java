package dev.muster.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.stream.AllocationJournal;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The scheduler counts callers that found its lock held and the time they waited (what muster_scheduler_lock_* report). */
class LockWaitsTest {
    @Test
    void aCallerThatFindsTheLockHeldIsCountedWithItsWait() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> holder = new AtomicReference<>();
        AtomicLong now = new AtomicLong();
        // the clock is read under the lock by expireDue: the holder thread stops there, inside the lock
        LongSupplier clock = () -> {
            if (Thread.currentThread() == holder.get()) {
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return now.get();
        };
        GangScheduler s = new GangScheduler(SchedulerConfig.DEFAULT, (p, n) -> CompletableFuture.completedFuture(null),
                new AllocationJournal(64, InstantSource.system()), clock);
        s.stats(); // uncontended
        assertThat(s.lockWaits()).isEqualTo(new GangScheduler.LockWaits(0, 0));

        Thread t = Thread.ofPlatform().unstarted(s::expireDue);
        holder.set(t);
        t.start();
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        Thread waiter = Thread.ofPlatform().start(s::stats);
        while (waiter.getState() != Thread.State.WAITING) { // parked in lock(), after reading the clock
            Thread.onSpinWait();
        }
        now.set(7_000_000); // the waiter reads the clock before and after its wait: 7 ms pass meanwhile
        holder.set(null);
        release.countDown();
        waiter.join();
        t.join();

        assertThat(s.lockWaits().contended()).isEqualTo(1);
        assertThat(s.lockWaits().waitNanos()).isEqualTo(7_000_000);
    }
}
