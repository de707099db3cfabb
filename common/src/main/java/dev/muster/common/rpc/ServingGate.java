package dev.muster.common.rpc;

import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Whether this process may answer leader-only RPCs right now, and where the leader is when it may not.
 * Implementations must be thread-safe and cheap: they are asked on every call (and on every wake-up of
 * a long-lived stream).
 */
public interface ServingGate {
    boolean mayServe();

    /** The leader's gRPC {@code host:port}, or "" when unknown. Only asked when {@link #mayServe()} is false. */
    String leaderAddress();

    /** A gate that is always open (a single replica, or leader election off). */
    static ServingGate always() {
        return of(() -> true, () -> "");
    }

    static ServingGate of(BooleanSupplier mayServe, Supplier<String> leaderAddress) {
        Objects.requireNonNull(mayServe, "mayServe");
        Objects.requireNonNull(leaderAddress, "leaderAddress");
        return new ServingGate() {
            @Override
            public boolean mayServe() {
                return mayServe.getAsBoolean();
            }

            @Override
            public String leaderAddress() {
                String a = leaderAddress.get();
                return a == null ? "" : a;
            }
        };
    }
}
