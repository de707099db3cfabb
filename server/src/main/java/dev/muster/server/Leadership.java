package dev.muster.server;

import dev.muster.common.leader.LeaderElector;
import dev.muster.common.leader.LeaderIdentity;
import java.util.Optional;

/**
 * Who decides: this process while it leads, otherwise the leader at {@link #leaderHost()}. The HTTP
 * verbs forward there and gRPC redirects there; nothing is ever decided from a standby's ledger.
 * Implementations are thread-safe.
 */
public interface Leadership {
    boolean leading();

    /** The leader's IP or host name when another process leads and it is known. */
    Optional<String> leaderHost();

    /** A single replica without leader election. */
    Leadership ALWAYS = new Leadership() {
        @Override
        public boolean leading() {
            return true;
        }

        @Override
        public Optional<String> leaderHost() {
            return Optional.empty();
        }
    };

    /** Leadership as a Lease elector sees it. */
    static Leadership of(LeaderElector elector) {
        return new Leadership() {
            @Override
            public boolean leading() {
                return elector.isLeader();
            }

            @Override
            public Optional<String> leaderHost() {
                return elector.isLeader() ? Optional.empty() : elector.leader().map(LeaderIdentity::podIp);
            }
        };
    }
}
