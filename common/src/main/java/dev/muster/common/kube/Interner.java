package dev.muster.common.kube;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared instance for equal values that are decoded again and again (a pod template's spec on each of its pods,
 * a namespace's name): {@link #intern} returns the instance seen first. Bounded: once it holds {@code capacity}
 * values it forgets them all and starts afresh, so values of deleted objects are not kept for ever; objects that
 * already share an instance keep it. Values must not change once interned (the informers' objects are read-only).
 * Thread-safe (lock-free; two threads interning equal values at once may each keep their own, which is only less
 * sharing).
 */
public final class Interner<T> {
    private final int capacity;
    private final ConcurrentHashMap<T, T> values;

    public Interner(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("an interner's capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.values = new ConcurrentHashMap<>(Math.min(capacity, 1024));
    }

    /** The instance equal to {@code value} seen first (or {@code value} itself); null stays null. */
    public T intern(T value) {
        if (value == null) {
            return null;
        }
        T had = values.putIfAbsent(value, value);
        if (had != null) {
            return had;
        }
        if (values.mappingCount() > capacity) {
            values.clear();
        }
        return value;
    }

    /** Values held now (at most the capacity, briefly one more). */
    public long size() {
        return values.mappingCount();
    }

    @Override
    public String toString() {
        return "Interner[" + size() + " of " + capacity + "]";
    }
}
