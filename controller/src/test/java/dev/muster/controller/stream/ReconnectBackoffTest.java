package dev.muster.controller.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReconnectBackoffTest {

    @Test
    void theDefaultDoublesFrom100MillisUpTo10SecondsAndResets() {
        ReconnectBackoff backoff = new ReconnectBackoff(ReconnectBackoff.Policy.DEFAULT);

        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            millis.add(backoff.next().toMillis());
        }
        backoff.reset();

        assertThat(millis).containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 6400L, 10_000L, 10_000L, 10_000L);
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
    }

    static Stream<Arguments> invalidPolicies() {
        return Stream.of(
                Arguments.of("zero initial delay", Duration.ZERO, Duration.ofSeconds(1), 2.0),
                Arguments.of("cap below the initial delay", Duration.ofSeconds(2), Duration.ofSeconds(1), 2.0),
                Arguments.of("shrinking multiplier", Duration.ofMillis(100), Duration.ofSeconds(1), 0.5));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPolicies")
    void nonsensePoliciesAreRejected(String name, Duration initial, Duration max, double multiplier) {
        assertThatThrownBy(() -> new ReconnectBackoff.Policy(initial, max, multiplier)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backoff needs");
    }
}
