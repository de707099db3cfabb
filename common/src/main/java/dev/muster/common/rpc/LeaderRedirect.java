package dev.muster.common.rpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;

/**
 * The "not the leader" answer of a standby: status UNAVAILABLE, description "not the leader (why)", and the
 * trailer {@code muster-leader-address: host:port} (empty when there is no leader to go to: not known yet, or the
 * Lease names the standby itself). Clients that understand it connect to that address next. Stateless;
 * thread-safe.
 */
public final class LeaderRedirect {
    public static final Metadata.Key<String> LEADER_ADDRESS = Metadata.Key.of("muster-leader-address", Metadata.ASCII_STRING_MARSHALLER);

    private LeaderRedirect() {}

    /**
     * @param leaderAddress the leader's {@code host:port}, or "" when there is none to redirect to
     * @param where         for people: who the leader is, or why there is no address (e.g. "no leader is known yet")
     */
    public static StatusRuntimeException notLeader(String leaderAddress, String where) {
        Metadata trailers = new Metadata();
        trailers.put(LEADER_ADDRESS, leaderAddress == null ? "" : leaderAddress);
        return Status.UNAVAILABLE.withDescription("not the leader (" + where + ")").asRuntimeException(trailers);
    }

    /** The leader address a call's trailers point to: present only for UNAVAILABLE with a non-empty address. */
    public static Optional<String> leaderAddress(Status status, Metadata trailers) {
        if (status.getCode() != Status.Code.UNAVAILABLE || trailers == null) {
            return Optional.empty();
        }
        String address = trailers.get(LEADER_ADDRESS);
        return address == null || address.isBlank() ? Optional.empty() : Optional.of(address.trim());
    }
}
