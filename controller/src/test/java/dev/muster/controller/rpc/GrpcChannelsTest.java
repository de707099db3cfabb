package dev.muster.controller.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GrpcChannelsTest {

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
        "muster-extender:9090, muster-extender",
        "muster-extender.muster.svc:9090, muster-extender.muster.svc",
        "dns:///muster-extender:9090, muster-extender",
        "10.0.0.7:9090, 10.0.0.7",
        "'[fd00::7]:9090', '[fd00::7]'",
        "muster-extender, muster-extender"
    })
    void theAuthorityIsTheTargetsHost(String target, String host) {
        assertThat(GrpcChannels.hostOf(target)).isEqualTo(host);
    }
}
