package dev.muster.demo.scenario;

import java.util.random.RandomGenerator;

/**
 * How a gang's {@code minMember} follows from its size: a count or range (capped at the size), or a percentage
 * of the size (rounded up, at least 1). Immutable.
 */
public record MinMember(Range count, int percent) {
    public static final MinMember ALL = new MinMember(null, 100);

    public static MinMember percent(int percent) {
        if (percent < 1 || percent > 100) {
            throw new IllegalArgumentException("minMember percentage must be 1-100, got " + percent);
        }
        return new MinMember(null, percent);
    }

    public static MinMember count(Range count) {
        return new MinMember(count, 0);
    }

    public int draw(int size, RandomGenerator random) {
        if (count != null) {
            return (int) Math.max(1, Math.min(size, count.draw(random)));
        }
        return Math.max(1, (int) Math.ceil(size * percent / 100.0));
    }
}
