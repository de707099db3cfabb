package dev.muster.core.model;

import java.util.Objects;

/**
 * A taint that keeps pods off a node unless they tolerate it: effect {@code NoSchedule} or {@code NoExecute}
 * (kube-scheduler's TaintToleration filter). {@code PreferNoSchedule} taints only rank a node lower and are not kept
 * as taints ({@link Node#preferNoSchedule()}).
 *
 * @param key    the taint's key
 * @param value  its value ("" when none)
 * @param effect {@link #NO_SCHEDULE} or {@link #NO_EXECUTE}
 */
public record NodeTaint(String key, String value, String effect) {
    public static final String NO_SCHEDULE = "NoSchedule";
    public static final String NO_EXECUTE = "NoExecute";
    public static final String PREFER_NO_SCHEDULE = "PreferNoSchedule";

    public NodeTaint {
        Objects.requireNonNull(key, "key");
        value = value == null ? "" : value;
        if (!NO_SCHEDULE.equals(effect) && !NO_EXECUTE.equals(effect)) {
            throw new IllegalArgumentException("taint " + key + ": effect must be " + NO_SCHEDULE + " or " + NO_EXECUTE + ", got " + effect);
        }
    }

    /** Whether a taint of this effect keeps untolerating pods off the node (NoSchedule, NoExecute). */
    public static boolean filters(String effect) {
        return NO_SCHEDULE.equals(effect) || NO_EXECUTE.equals(effect);
    }

    /** {@code key=value:effect}, as kubectl shows it. */
    @Override
    public String toString() {
        return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
    }
}
