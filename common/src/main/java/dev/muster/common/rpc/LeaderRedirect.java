package dev.muster.common.rpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;

/**
 * The "not the leader" answer of a standby: status UNAVAILABLE, description "not the leader", and the
 * trailer {@code muster-leader-address: host:port} (empty when the leader is not known yet). Clients that
 * understand it connect to that address next. Stateless; thread-safe.
 */
public final class LeaderRedirect {
    public static final Metadata.Key<String> LEADER_ADDRESS = Metadata.Key.of("muster-leader-address", Metadata.ASCII_STRING_MARSHALLER);

    private LeaderRedirect() {}

    public static StatusRuntimeException notLeader(String leaderAddress) {
        Metadata trailers = new Metadata();
        trailers.put(LEADER_ADDRESS, leaderAddress == null ? "" : leaderAddress);
        String where = leaderAddress == null || leaderAddress.isEmpty() ? "the leader is not known yet" : "the leader is " + leaderAddress;
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
