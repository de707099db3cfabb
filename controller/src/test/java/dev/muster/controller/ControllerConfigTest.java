package dev.muster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.rpc.ServerTls;
import dev.muster.controller.rpc.ClientTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ControllerConfigTest {
    private static final Map<String, String> POD = Map.of("POD_NAME", "muster-controller-0", "POD_NAMESPACE", "muster", "POD_IP", "10.0.0.7");
    private static final Path NO_SA = Path.of("/nonexistent/namespace");

    @Test
    void defaultsFollowTheProcessContract() {
        ControllerConfig c = ControllerConfig.parse(List.of(), POD, NO_SA);
        assertThat(c.extenderAddress()).isEqualTo("muster-extender:9090");
        assertThat(c.opsPort()).isEqualTo(8080);
        assertThat(c.grpcPort()).isEqualTo(9091);
        assertThat(c.flushInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.apiQps()).isEqualTo(20);
        assertThat(c.apiBurst()).isEqualTo(40);
        assertThat(c.leaderElect()).isTrue();
        assertThat(c.leaseName()).isEqualTo("muster-controller");
        assertThat(c.leaseNamespace()).isEqualTo("muster");
        assertThat(c.leaderIdentity()).hasToString("muster-controller-0_10.0.0.7");
        assertThat(c.grpcTls()).isEmpty();
        assertThat(c.extenderTls()).isEmpty();
        assertThat(c.callers().anyCertificate()).isTrue();
    }

    @Test
    void flagsWinOverEnvironment() {
        ControllerConfig c = ControllerConfig.parse(List.of("--flush-interval=500ms", "--api-qps", "7.5", "--leader-elect=false"),
                Map.of("MUSTER_API_QPS", "99", "MUSTER_API_BURST", "3"), NO_SA);
        assertThat(c.flushInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.apiQps()).isEqualTo(7.5);
        assertThat(c.apiBurst()).isEqualTo(3);
        assertThat(c.leaderElect()).isFalse();
    }

    @Test
    void tlsFilesAreReadTogether(@TempDir Path dir) throws IOException {
        Path cert = Files.writeString(dir.resolve("tls.crt"), "x");
        Path key = Files.writeString(dir.resolve("tls.key"), "x");
        Path ca = Files.writeString(dir.resolve("ca.crt"), "x");
        ControllerConfig c = ControllerConfig.parse(List.of("--grpc-tls-cert-file", cert.toString(), "--grpc-tls-key-file", key.toString(),
                "--grpc-tls-client-ca-file", ca.toString(), "--extender-tls-ca-file", ca.toString()), POD, NO_SA);
        assertThat(c.grpcTls()).contains(new ServerTls(cert, key, ca));
        assertThat(c.extenderTls()).contains(new ClientTls(ca, null, null));
    }

    static Stream<Arguments> badConfigs() {
        return Stream.of(
                Arguments.of("unknown flag", List.of("--api-qbs=3"), POD, "unknown flag --api-qbs"),
                Arguments.of("zero qps", List.of("--api-qps=0"), POD, "--api-qps must be a positive number"),
                Arguments.of("qps not a number", List.of("--api-qps=fast"), POD, "--api-qps: \"fast\" is not a number"),
                Arguments.of("zero burst", List.of("--api-burst=0"), POD, "--api-burst must be at least 1"),
                Arguments.of("zero flush interval", List.of("--flush-interval=0s"), POD, "--flush-interval must be positive"),
                Arguments.of("nonsense flush interval", List.of("--flush-interval=soon"), POD, "--flush-interval"),
                Arguments.of("extender without port", List.of("--extender-address=muster-extender"), POD, "--extender-address: \"muster-extender\" is not host:port"),
                Arguments.of("extender with a bad port", List.of("--extender-address=x:99999"), POD, "--extender-address: \"99999\" is not a port"),
                Arguments.of("same ports", List.of("--ops-port=9000", "--grpc-port=9000"), POD, "--ops-port and --grpc-port must differ"),
                Arguments.of("port out of range", List.of("--grpc-port=70000"), POD, "--grpc-port: 70000 is not a port"),
                Arguments.of("unreadable kubeconfig", List.of("--kubeconfig=/nonexistent/kubeconfig"), POD, "--kubeconfig: /nonexistent/kubeconfig does not exist or is not a file"),
                Arguments.of("cert without key", List.of("--grpc-tls-cert-file=/etc/hostname"), POD, "--grpc-tls-key-file missing"),
                Arguments.of("client cert without key", List.of("--extender-tls-ca-file=/etc/hostname", "--extender-tls-cert-file=/etc/hostname"),
                        POD, "--extender-tls-key-file missing"),
                Arguments.of("a TLS Secret without its namespace", List.of("--extender-tls-secret=muster-controller-client-tls"), POD,
                        "--extender-tls-secret: \"muster-controller-client-tls\" is not NAMESPACE/NAME"),
                Arguments.of("a TLS Secret without client certificate files", List.of("--extender-tls-secret=m/c"), POD,
                        "--extender-tls-secret names where the --extender-tls-* files are read from, but no --extender-tls-cert-file"),
                Arguments.of("a role that does not exist", List.of("--tls-client-roles=admin=me"), POD, "--tls-client-roles: \"admin=me\""),
                Arguments.of("a pod name with an underscore", List.of(), Map.of("POD_NAME", "a_b", "POD_NAMESPACE", "m", "POD_IP", "1.2.3.4"),
                        "POD_NAME/POD_IP"),
                Arguments.of("leader election without a namespace", List.of(), Map.of("POD_NAME", "p", "POD_IP", "1.2.3.4"), "--lease-namespace is not set"),
                Arguments.of("leader election without POD_IP", List.of(), Map.of("POD_NAME", "p", "POD_NAMESPACE", "m"), "POD_IP is not set"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigs")
    void badInputIsAClearErrorNamingTheFlag(String name, List<String> args, Map<String, String> env, String message) {
        assertThatThrownBy(() -> ControllerConfig.parse(args, env, NO_SA))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void usageListsEveryFlag() {
        assertThat(ControllerConfig.usage()).contains("--flush-interval", "--api-qps", "--api-burst", "--extender-tls-ca-file", "POD_IP");
    }
}
