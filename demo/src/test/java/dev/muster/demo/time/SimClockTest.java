package dev.muster.demo.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SimClockTest {
    private final AtomicLong real = new AtomicLong(1_000);
    private final SimClock clock = new SimClock(20, real::get);

    @Test
    void startsPausedAtZero() {
        real.addAndGet(5_000_000_000L);
        assertThat(clock.nanos()).isZero();
        assertThat(clock.realNanosUntil(1)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void runsSpeedTimesFasterThanRealTime() {
        clock.resume();
        real.addAndGet(1_000_000_000L);
        assertThat(clock.now()).isEqualTo(Duration.ofSeconds(20));
        assertThat(clock.realNanosUntil(Duration.ofSeconds(30).toNanos())).isEqualTo(500_000_000L);
        assertThat(clock.realNanosUntil(Duration.ofSeconds(10).toNanos())).isZero();
    }

    @Test
    void standsStillWhilePausedAndGoesOnFromThere() {
        clock.resume();
        real.addAndGet(1_000_000_000L);
        clock.pause();
        real.addAndGet(7_000_000_000L);
        assertThat(clock.now()).isEqualTo(Duration.ofSeconds(20));
        clock.resume();
        real.addAndGet(500_000_000L);
        assertThat(clock.now()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void convertsSimulatedDurationsToReal() {
        assertThat(clock.toReal(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(3));
    }
}
