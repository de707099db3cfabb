package dev.muster.server.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.leader.LeaderIdentity;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One answer for every transport: does this replica lead, and where does the leader serve (from the Lease). */
class LeadershipTest {
    private static final LeaderIdentity SELF = new LeaderIdentity("muster-1", "10.0.0.1", 8888, 9090);

    private final AtomicBoolean leading = new AtomicBoolean(false);
    private final AtomicReference<String> holder = new AtomicReference<>();
    private final Leadership leadership = Leadership.of(SELF, leading::get, () -> Optional.ofNullable(holder.get()));

    @Test
    void theLeadersHostAndPortsComeFromTheLease() {
        holder.set("muster-0_http=18888,grpc=19090_10.0.0.7");

        Leadership.Route route = leadership.route();

        assertThat(route.httpUrl("https")).contains("https://10.0.0.7:18888");
        assertThat(route.grpcTarget()).isEqualTo("10.0.0.7:19090");
        assertThat(route.describe()).isEqualTo("the leader is muster-0_http=18888,grpc=19090_10.0.0.7");
    }

    @Test
    void aLeaderThatPublishesNoPortsServesOnOurs() {
        holder.set("muster-0_10.0.0.7"); // written by an earlier extender

        assertThat(leadership.route().httpUrl("http")).contains("http://10.0.0.7:8888");
        assertThat(leadership.route().grpcTarget()).isEqualTo("10.0.0.7:9090");
    }

    @Test
    void ipv6AddressesAreBracketed() {
        holder.set("muster-0_http=8888,grpc=9090_fd00::7");

        assertThat(leadership.route().httpUrl("http")).contains("http://[fd00::7]:8888");
        assertThat(leadership.route().grpcTarget()).isEqualTo("[fd00::7]:9090");
    }

    @Test
    void noRouteWhenNoLeaderIsKnownOrTheHolderIsNotAnExtender() {
        assertThat(leadership.route().httpUrl("http")).isEmpty();
        assertThat(leadership.route().grpcTarget()).isEmpty();
        assertThat(leadership.route().problem()).isEqualTo("no leader is known yet");

        holder.set("kube-scheduler-lock-holder");
        assertThat(leadership.route().httpUrl("http")).isEmpty();
        assertThat(leadership.route().problem()).contains("\"kube-scheduler-lock-holder\" is not a muster extender identity");
    }

    @Test
    void leadingFollowsTheElector() {
        assertThat(leadership.leading()).isFalse();
        leading.set(true);
        assertThat(leadership.leading()).isTrue();
        assertThat(leadership.identity()).isEqualTo("muster-1_http=8888,grpc=9090_10.0.0.1");
    }

    @Test
    void withoutElectionItAlwaysLeadsAndRoutesNowhere() {
        assertThat(Leadership.ALWAYS.leading()).isTrue();
        assertThat(Leadership.ALWAYS.identity()).isEmpty();
        assertThat(Leadership.ALWAYS.route().httpUrl("http")).isEmpty();
    }

    @Test
    void anIdentityWithoutPortsCannotBeForwardedTo() {
        assertThatThrownBy(() -> Leadership.of(new LeaderIdentity("muster-1", "10.0.0.1"), () -> false, Optional::empty))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must publish its serving ports");
    }

    @Test
    void aLeaseThatStillNamesThisReplicaIsNoRoute() {
        holder.set(SELF.toString()); // e.g. its renewal is overdue: isLeader() is false, the Lease not yet taken over

        Leadership.Route route = leadership.route();

        assertThat(route.httpUrl("http")).isEmpty();
        assertThat(route.grpcTarget()).isEmpty();
        assertThat(route.problem()).contains("the Lease still names this replica (muster-1_http=8888,grpc=9090_10.0.0.1)");
    }

    @Test
    void aLeaderWithoutPortsOnThisReplicasIpIsNoRoute() {
        holder.set("muster-old_10.0.0.1"); // its ports would be ours: this very process

        assertThat(leadership.route().httpUrl("http")).isEmpty();
        assertThat(leadership.route().problem()).contains("which is this replica's own address").contains("forwarding there would loop");
    }

    @Test
    void aLeaderOnThisReplicasIpWithItsOwnPortsIsARoute() {
        holder.set("muster-0_http=18888,grpc=19090_10.0.0.1"); // two replicas on one host

        assertThat(leadership.route().httpUrl("http")).contains("http://10.0.0.1:18888");
        assertThat(leadership.route().grpcTarget()).isEqualTo("10.0.0.1:19090");
    }
}
