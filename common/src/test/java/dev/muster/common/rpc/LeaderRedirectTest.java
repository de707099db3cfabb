package dev.muster.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeaderRedirectTest {

    @ParameterizedTest(name = "{0} with address \"{1}\" → \"{2}\"")
    @CsvSource({
        "UNAVAILABLE, 10.0.0.7:9090, 10.0.0.7:9090",
        "UNAVAILABLE, '', ''",
        "INTERNAL, 10.0.0.7:9090, ''",
    })
    void onlyUnavailableWithAnAddressIsARedirect(Status.Code code, String address, String expected) {
        Metadata trailers = new Metadata();
        trailers.put(LeaderRedirect.LEADER_ADDRESS, address);

        assertThat(LeaderRedirect.leaderAddress(Status.fromCode(code), trailers).orElse("")).isEqualTo(expected);
    }
}
