package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private final FakeTicker ticker = new FakeTicker();

    @Test
    void startsWithTheBurstThenRefillsAtTheRate() {
        TokenBucket b = new TokenBucket(20, 40, ticker);
        assertThat(take(b)).isEqualTo(40);
        ticker.advance(Duration.ofMillis(500));
        assertThat(take(b)).isEqualTo(10);
        ticker.advance(Duration.ofSeconds(60));
        assertThat(take(b)).as("never more than the burst saved up").isEqualTo(40);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> new TokenBucket(0, 1, ticker)).hasMessageContaining("--api-qps");
        assertThatThrownBy(() -> new TokenBucket(1, 0, ticker)).hasMessageContaining("--api-burst");
    }

    private static int take(TokenBucket b) {
        int n = 0;
        while (b.tryAcquire()) {
            n++;
        }
        return n;
    }
}
