package dev.muster.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class TickerTest {
    @Test
    void aTickThatThrowsAnErrorDoesNotStopTheNextTicks() {
        AtomicInteger runs = new AtomicInteger();
        try (Ticker ticker = new Ticker("test-ticker", Duration.ofMillis(5), () -> {
            int n = runs.incrementAndGet();
            if (n == 1) {
                throw new StackOverflowError("an Error, not an exception");
            }
            if (n == 2) {
                throw new IllegalStateException("and an exception");
            }
        })) {
            Awaitility.await("the tick runs again after an Error and an exception").atMost(Duration.ofSeconds(30))
                    .until(() -> runs.get() >= 4);
        }
        assertThat(runs.get()).isGreaterThanOrEqualTo(4);
    }
}
