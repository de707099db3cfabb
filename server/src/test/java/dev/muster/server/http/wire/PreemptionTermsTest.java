package dev.muster.server.http.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.Pod;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** A verb's pod carries its preemption terms: {@code spec.preemptionPolicy} and {@code spec.terminationGracePeriodSeconds}. */
class PreemptionTermsTest {
    private static Pod decode(String spec) {
        String pod = "{'metadata':{'name':'p','namespace':'ns','uid':'u-1'},'spec':{" + spec + (spec.isEmpty() ? "" : ",")
                + "'containers':[{'name':'c'}]}}";
        return WireDecoder.decodeExtenderArgs(Bodies.utf8(Bodies.json("{'Pod':" + pod + ",'NodeNames':['n1']}"))).pod().pod();
    }

    static Stream<Arguments> specs() {
        return Stream.of(
                Arguments.of("nothing said: may preempt, the default grace", "", false, Pod.DEFAULT_GRACE_SECONDS),
                Arguments.of("nulls are nothing said", "'preemptionPolicy':null,'terminationGracePeriodSeconds':null", false,
                        Pod.DEFAULT_GRACE_SECONDS),
                Arguments.of("PreemptLowerPriority may preempt", "'preemptionPolicy':'PreemptLowerPriority','terminationGracePeriodSeconds':30",
                        false, 30L),
                Arguments.of("Never never preempts", "'preemptionPolicy':'Never','terminationGracePeriodSeconds':600", true, 600L),
                Arguments.of("zero grace", "'terminationGracePeriodSeconds':0", false, 0L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void theTermsAreRead(String name, String spec, boolean never, long grace) {
        Pod pod = decode(spec);
        assertThat(pod.neverPreempts()).isEqualTo(never);
        assertThat(pod.graceSeconds()).isEqualTo(grace);
    }

    @Test
    void theNominatedNodeIsRead() {
        String pod = "{'metadata':{'name':'p','namespace':'ns','uid':'u-1'},'spec':{'containers':[{'name':'c'}]},"
                + "'status':{'phase':'Pending','nominatedNodeName':'n2'}}";
        Pod read = WireDecoder.decodeExtenderArgs(Bodies.utf8(Bodies.json("{'Pod':" + pod + ",'NodeNames':['n1']}"))).pod().pod();
        assertThat(read.nominatedNodeName()).isEqualTo("n2");
        assertThat(decode("").nominated()).isFalse();
    }

    @Test
    void aGracePeriodThatIsNoIntegerIsAnErrorNamingIt() {
        assertThatThrownBy(() -> decode("'terminationGracePeriodSeconds':'30s'")).isInstanceOf(WireFormatException.class)
                .hasMessageContaining("terminationGracePeriodSeconds");
        assertThatThrownBy(() -> decode("'preemptionPolicy':'Never','preemptionPolicy':'Never'")).isInstanceOf(WireFormatException.class)
                .hasMessageContaining("duplicate key");
    }
}
