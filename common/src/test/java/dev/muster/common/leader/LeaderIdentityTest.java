package dev.muster.common.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class LeaderIdentityTest {

    static Stream<Arguments> holders() {
        return Stream.of(
                Arguments.of("address only (controller, earlier extenders)", "muster-extender-7d9f_10.1.2.3",
                        new LeaderIdentity("muster-extender-7d9f", "10.1.2.3")),
                Arguments.of("address only, IPv6", "muster-0_fd00::1", new LeaderIdentity("muster-0", "fd00::1")),
                Arguments.of("with serving ports", "muster-extender-7d9f_http=8888,grpc=9090_10.1.2.3",
                        new LeaderIdentity("muster-extender-7d9f", "10.1.2.3", 8888, 9090)),
                Arguments.of("with serving ports, IPv6", "muster-0_http=18888,grpc=19090_fd00::1",
                        new LeaderIdentity("muster-0", "fd00::1", 18888, 19090)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("holders")
    void readsBothFormsAndWritesThemBack(String name, String holder, LeaderIdentity identity) {
        assertThat(LeaderIdentity.parse(holder)).contains(identity);
        assertThat(identity).hasToString(holder);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("holders")
    void theAddressStaysAfterTheLastUnderscoreForEarlierReaders(String name, String holder, LeaderIdentity identity) {
        assertThat(holder.substring(holder.lastIndexOf('_') + 1)).isEqualTo(identity.podIp());
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"no-address", "kube-scheduler-abc", "a_b_c_d", "muster-0_ports=1,2_10.0.0.1", "muster-0_http=8888,grpc=99999_10.0.0.1",
            "_10.0.0.1", "muster-0_"})
    void identitiesMusterDidNotWriteHaveNoAddress(String holder) {
        assertThat(LeaderIdentity.parse(holder)).isEmpty();
    }

    @Test
    void portsArePublishedTogetherOrNotAtAll() {
        assertThat(new LeaderIdentity("m", "10.0.0.1").publishesPorts()).isFalse();
        assertThat(new LeaderIdentity("m", "10.0.0.1").withPorts(8888, 9090).publishesPorts()).isTrue();
        assertThatThrownBy(() -> new LeaderIdentity("m", "10.0.0.1", 8888, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("serving ports");
    }
}
