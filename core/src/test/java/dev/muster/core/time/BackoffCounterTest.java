package dev.muster.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffCounterTest {

    @Test
    void theDefaultDoublesFrom100MillisUpTo10SecondsAndResets() {
        BackoffCounter backoff = new BackoffCounter(BackoffCounter.DEFAULT);

        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            millis.add(backoff.next().toMillis());
        }
        backoff.reset();

        assertThat(millis).containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 6400L, 10_000L, 10_000L, 10_000L);
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aZeroInitialDelayIsRejected() {
        assertThatThrownBy(() -> new BackoffCounter(new Backoff(Duration.ZERO, Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backoff needs");
    }
}
