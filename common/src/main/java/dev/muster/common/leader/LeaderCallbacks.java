package dev.muster.common.leader;

/**
 * What the {@link LeaderElector} tells its owner. Called on the elector's thread, one at a time, in the order the
 * transitions happened; an exception thrown by a callback is logged and does not stop the election. Keep them quick
 * (hand long work to another thread).
 */
public interface LeaderCallbacks {
    /** This process now leads (until {@link #onStoppedLeading}). */
    void onStartedLeading();

    /** This process no longer leads: renewal failed past the renew deadline, another holder was seen, or it stopped. */
    void onStoppedLeading();

    /** The observed holder changed to {@code identity} (possibly this process). Never called with "". */
    default void onNewLeader(String identity) {}
}
