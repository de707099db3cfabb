package dev.muster.core.queue;

import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QueueAdmissionTest {
    static QueueSpec q(QueueState s, Resources cap) {
        return new QueueSpec("q", s, 1, cap, null, null, true);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("open without capability admits", q(QueueState.OPEN, null), res("100", "1Ti"), res("100", "1Ti"), "admitted"),
                Arguments.of("missing queue never admits", null, Resources.ZERO, res("1", "1Gi"), "unresolvable: queue q does not exist"),
                Arguments.of("closed queue never admits", q(QueueState.CLOSED, null), Resources.ZERO, res("1", "1Gi"), "unresolvable: queue q is Closed and admits no new gangs"),
                Arguments.of("closing queue never admits", q(QueueState.CLOSING, null), Resources.ZERO, res("1", "1Gi"), "unresolvable: queue q is Closing and admits no new gangs"),
                Arguments.of("within capability admits", q(QueueState.OPEN, res("10", "10Gi")), res("4", "4Gi"), res("6", "6Gi"), "admitted"),
                Arguments.of("over capability waits and says by how much", q(QueueState.OPEN, res("10", "10Gi")), res("8", "1Gi"), res("4", "1Gi"),
                        "retry: queue q is full for now: it holds 8 cpu, 1Gi memory of its capability 10 cpu, 10Gi memory, and the gang needs 4 cpu, 1Gi memory more (cpu by 2 over)"),
                Arguments.of("larger than capability itself never fits", q(QueueState.OPEN, res("10", "10Gi")), Resources.ZERO, res("12", "1Gi"),
                        "unresolvable: queue q's capability 10 cpu, 10Gi memory is less than the gang alone needs, 12 cpu, 1Gi memory (cpu by 2 over)"),
                Arguments.of("unnamed resources are unlimited", q(QueueState.OPEN, res("10", null)), res("1", "1Ti"), res("1", "1Ti"), "admitted"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void admits(String name, QueueSpec queue, Resources held, Resources gang, String expected) {
        String actual = switch (QueueAdmission.check("q", queue, held, gang)) {
            case QueueAdmission.Verdict.Admitted a -> "admitted";
            case QueueAdmission.Verdict.Refused r -> (r.resolvable() ? "retry: " : "unresolvable: ") + r.reason();
        };
        assertThat(actual).isEqualTo(expected);
    }
}
