package dev.muster.server.http;

import java.util.Optional;

/**
 * Whether this process may decide, and where the one that may is. The active (leading, synced) extender
 * answers verbs itself; a standby forwards them to the leader, so kube-scheduler's single address always
 * reaches a warm ledger. Implementations are thread-safe.
 */
public interface LeaderGate {
    /** True when this process holds the lease (always true without leader election). */
    boolean leading();

    /** The leader's verbs base URL (e.g. {@code http://10.0.0.7:8888}) when another process leads. */
    Optional<String> leaderUrl();

    /** For a single replica without leader election. */
    LeaderGate ALWAYS = new LeaderGate() {
        @Override
        public boolean leading() {
            return true;
        }

        @Override
        public Optional<String> leaderUrl() {
            return Optional.empty();
        }
    };
}
