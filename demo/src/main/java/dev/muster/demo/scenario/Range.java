package dev.muster.demo.scenario;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A whole-number amount a scenario draws from: a fixed value, a range {@code min..max} (uniform, in multiples of
 * {@code step} from {@code min}), or a list of choices (uniform). Amounts are in the resource's base unit
 * (millicores for cpu, bytes for memory) or plain counts. Immutable.
 */
public record Range(long min, long max, long step, List<Long> choices) {
    public Range {
        choices = choices == null ? List.of() : List.copyOf(choices);
        if (choices.isEmpty() && (min > max || step <= 0)) {
            throw new IllegalArgumentException("range needs min <= max and step > 0, got " + min + ".." + max + " step " + step);
        }
    }

    public static Range of(long value) {
        return new Range(value, value, 1, List.of());
    }

    public static Range between(long min, long max, long step) {
        return new Range(min, max, step, List.of());
    }

    public static Range oneOf(List<Long> choices) {
        long min = choices.stream().mapToLong(Long::longValue).min().orElseThrow();
        long max = choices.stream().mapToLong(Long::longValue).max().orElseThrow();
        return new Range(min, max, 1, choices);
    }

    public long draw(RandomGenerator random) {
        if (!choices.isEmpty()) {
            return choices.get(random.nextInt(choices.size()));
        }
        long steps = (max - min) / step;
        return min + step * (steps == 0 ? 0 : random.nextLong(steps + 1));
    }

    public boolean isZero() {
        return max == 0;
    }
}
