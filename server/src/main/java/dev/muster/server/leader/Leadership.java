package dev.muster.server.leader;

import dev.muster.common.leader.LeaderElector;
import dev.muster.common.leader.LeaderIdentity;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Who decides, and where a standby sends what it must not decide: the one answer the HTTP verbs (forwarded to
 * the leader), the gRPC verbs and the allocation stream (answered with a redirect to it) ask. Nothing is ever
 * decided from a standby's ledger.
 *
 * <p>The leader's address, host and ports, is read from the Lease holder identity
 * ({@link LeaderIdentity}: {@code <POD_NAME>_http=<PORT>,grpc=<PORT>_<POD_IP>}). An identity without ports was
 * written by an earlier extender, which served on the same ports as this one. A leader whose address is this
 * replica's own (the Lease still names it while its renewal is overdue, or a portless identity on a shared IP)
 * is no route: a request sent there would come straight back.
 *
 * <p>Thread-safe and cheap (asked on every request): holds no state of its own and asks the elector each time.
 */
public final class Leadership {
    /**
     * Where a standby sends a request: to {@code leader} (its serving ports always known), or nowhere, for the
     * reason {@code problem} (a phrase such as "no leader is known yet"). Exactly one of the two is non-null.
     */
    public record Route(LeaderIdentity leader, String problem) {
        public Route {
            if ((leader == null) == (problem == null)) {
                throw new IllegalArgumentException("a route has a leader or a problem, not both or neither");
            }
            if (leader != null && !leader.publishesPorts()) {
                throw new IllegalArgumentException("a route needs the leader's ports: " + leader);
            }
        }

        static Route to(LeaderIdentity leader) {
            return new Route(leader, null);
        }

        static Route nowhere(String problem) {
            return new Route(null, problem);
        }

        /** The leader's verbs base URL, e.g. {@code http://10.0.0.7:8888} or {@code https://[fd00::7]:8888}. */
        public Optional<String> httpUrl(String scheme) {
            return leader == null ? Optional.empty() : Optional.of(scheme + "://" + uriHost(leader.podIp()) + ":" + leader.httpPort());
        }

        /** The leader's gRPC {@code host:port}, or "" when there is none (what the redirect trailer carries). */
        public String grpcTarget() {
            return leader == null ? "" : uriHost(leader.podIp()) + ":" + leader.grpcPort();
        }

        /** For error messages: "the leader is ..." or the problem. */
        public String describe() {
            return leader == null ? problem : "the leader is " + leader;
        }

        private static String uriHost(String ip) {
            return ip.contains(":") ? "[" + ip + "]" : ip;
        }
    }

    /** A single replica without leader election: always leads. */
    public static final Leadership ALWAYS = new Leadership(null, () -> true, Optional::empty);

    private final LeaderIdentity self;
    private final BooleanSupplier leading;
    private final Supplier<Optional<String>> holder;

    private Leadership(LeaderIdentity self, BooleanSupplier leading, Supplier<Optional<String>> holder) {
        this.self = self;
        this.leading = leading;
        this.holder = holder;
    }

    /** Leadership as a Lease elector sees it; the elector's identity must publish the serving ports. */
    public static Leadership of(LeaderElector elector) {
        LeaderIdentity self = LeaderIdentity.parse(elector.identity())
                .orElseThrow(() -> new IllegalArgumentException("not an extender Lease identity: " + elector.identity()));
        return of(self, elector::isLeader, elector::leaderIdentity);
    }

    /**
     * Leadership from its parts (tests, and processes that elect otherwise).
     *
     * @param self    this replica's identity, with the ports it serves on
     * @param leading true while this replica holds the lease
     * @param holder  the holder identity last seen in the Lease; empty when none is known
     */
    public static Leadership of(LeaderIdentity self, BooleanSupplier leading, Supplier<Optional<String>> holder) {
        Objects.requireNonNull(self, "self");
        if (!self.publishesPorts()) {
            throw new IllegalArgumentException("the extender's Lease identity must publish its serving ports: " + self);
        }
        return new Leadership(self, Objects.requireNonNull(leading, "leading"), Objects.requireNonNull(holder, "holder"));
    }

    /** True when this process holds the lease (always without leader election). */
    public boolean leading() {
        return leading.getAsBoolean();
    }

    /** This replica's Lease identity; "" without leader election. */
    public String identity() {
        return self == null ? "" : self.toString();
    }

    /** Where to send what this process must not decide; meaningful only while {@link #leading()} is false. */
    public Route route() {
        if (self == null) {
            return Route.nowhere("this extender runs without leader election and always leads");
        }
        Optional<String> seen = holder.get();
        if (seen.isEmpty() || seen.get().isEmpty()) {
            return Route.nowhere("no leader is known yet");
        }
        Optional<LeaderIdentity> leader = LeaderIdentity.parse(seen.get());
        if (leader.isEmpty()) {
            return Route.nowhere("the Lease holder \"" + seen.get() + "\" is not a muster extender identity");
        }
        LeaderIdentity l = leader.get().publishesPorts() ? leader.get() : leader.get().withPorts(self.httpPort(), self.grpcPort());
        if (l.equals(self)) {
            return Route.nowhere("the Lease still names this replica (" + self + ") although it does not lead: its renewal is overdue"
                    + " or it is stepping down, and a request forwarded to itself would loop");
        }
        if (sameAddress(l, self)) {
            return Route.nowhere("the Lease names " + seen.get() + " as the leader, at " + l.podIp() + " ports " + l.httpPort() + "/"
                    + l.grpcPort() + ", which is this replica's own address (" + self + "): forwarding there would loop"
                    + " (replicas sharing an IP need distinct ports, and the leader must publish them in its Lease identity)");
        }
        return Route.to(l);
    }

    private static boolean sameAddress(LeaderIdentity a, LeaderIdentity b) {
        return a.podIp().equals(b.podIp()) && (a.httpPort() == b.httpPort() || a.grpcPort() == b.grpcPort());
    }
}
